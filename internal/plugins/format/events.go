package format

import (
	"fmt"
	"path"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// quiver's lifecycle events a hook can handle: the six of SPEC §8, which
// keep their names, and every other event of Claude Code's (SPEC §15),
// named in snake_case.
const (
	SessionStart    = "session_start"
	BeforeToolCall  = "before_tool_call"
	AfterToolCall   = "after_tool_call"
	UserMessageSend = "user_message_send"
	AgentStop       = "agent_stop"
	TurnEnd         = "turn_end"

	SessionEnd          = "session_end"
	Setup               = "setup"
	Notification        = "notification"
	PermissionRequest   = "permission_request"
	PermissionDenied    = "permission_denied"
	PostToolUseFailure  = "post_tool_use_failure"
	PostToolBatch       = "post_tool_batch"
	UserPromptExpansion = "user_prompt_expansion"
	StopFailure         = "stop_failure"
	SubagentStart       = "subagent_start"
	PreCompact          = "pre_compact"
	PostCompact         = "post_compact"
	PreModelSwitch      = "pre_model_switch"
	PostModelSwitch     = "post_model_switch"
	TeammateIdle        = "teammate_idle"
	TaskCreated         = "task_created"
	TaskCompleted       = "task_completed"
	Elicitation         = "elicitation"
	ElicitationResult   = "elicitation_result"
	ConfigChange        = "config_change"
	WorktreeCreate      = "worktree_create"
	WorktreeRemove      = "worktree_remove"
	InstructionsLoaded  = "instructions_loaded"
	CwdChanged          = "cwd_changed"
	FileChanged         = "file_changed"
	DirectoryAdded      = "directory_added"
	MessageDisplay      = "message_display"
)

// Event is what quiver knows of one event: its names, what a matcher of
// it reads, and how its hooks' results combine (SPEC §15's table, from
// Claude Code 2.1.328: ../shared/notes/claude-hooks.md §A).
type Event struct {
	// Name is quiver's; Claude lists Claude Code's events it stands for
	// (agent_stop: Stop and SubagentStop; turn_end: none).
	Name   string
	Claude []string
	// Blocks: a hook can stop what the event is about (a tool call, a
	// prompt, a compaction, a worktree, ...): exit 2 or a "block"
	// decision is a block, and --fail-closed applies.
	Blocks bool
	// Chains: a hook's answer changes what the next one sees or whether
	// it runs (a block, a rewrite, a permission decided), so the hooks
	// run one after another in precedence order. The others start
	// together and combine in precedence order (SPEC §15 "Speed").
	Chains bool
	// Tool: the event is about one tool call; its matcher reads
	// tool_name and it alone evaluates an `if` condition.
	Tool bool
	// PlainContext: a handler's plain (non-JSON) stdout on exit 0 reaches
	// the model as context, as Claude takes it on these events only.
	PlainContext bool
}

// events is the table, in the order the docs present it: §8's six first.
var events = []Event{
	{Name: SessionStart, Claude: []string{"SessionStart"}, PlainContext: true},
	{Name: BeforeToolCall, Claude: []string{"PreToolUse"}, Blocks: true, Chains: true, Tool: true},
	{Name: AfterToolCall, Claude: []string{"PostToolUse"}, Chains: true, Tool: true},
	{Name: UserMessageSend, Claude: []string{"UserPromptSubmit"}, Blocks: true, Chains: true, PlainContext: true},
	{Name: AgentStop, Claude: []string{"Stop", "SubagentStop"}},
	{Name: TurnEnd},

	{Name: SessionEnd, Claude: []string{"SessionEnd"}},
	{Name: Setup, Claude: []string{"Setup"}},
	{Name: Notification, Claude: []string{"Notification"}},
	{Name: PermissionRequest, Claude: []string{"PermissionRequest"}, Chains: true, Tool: true},
	{Name: PermissionDenied, Claude: []string{"PermissionDenied"}, Tool: true},
	{Name: PostToolUseFailure, Claude: []string{"PostToolUseFailure"}, Tool: true},
	{Name: PostToolBatch, Claude: []string{"PostToolBatch"}, Blocks: true, Chains: true},
	{Name: UserPromptExpansion, Claude: []string{"UserPromptExpansion"}, Blocks: true, Chains: true, PlainContext: true},
	{Name: StopFailure, Claude: []string{"StopFailure"}},
	{Name: SubagentStart, Claude: []string{"SubagentStart"}},
	{Name: PreCompact, Claude: []string{"PreCompact"}, Blocks: true, Chains: true},
	{Name: PostCompact, Claude: []string{"PostCompact"}},
	{Name: PreModelSwitch, Claude: []string{"PreModelSwitch"}, Blocks: true, Chains: true},
	{Name: PostModelSwitch, Claude: []string{"PostModelSwitch"}},
	{Name: TeammateIdle, Claude: []string{"TeammateIdle"}, Blocks: true, Chains: true},
	{Name: TaskCreated, Claude: []string{"TaskCreated"}, Blocks: true, Chains: true},
	{Name: TaskCompleted, Claude: []string{"TaskCompleted"}, Blocks: true, Chains: true},
	{Name: Elicitation, Claude: []string{"Elicitation"}, Blocks: true, Chains: true},
	{Name: ElicitationResult, Claude: []string{"ElicitationResult"}, Blocks: true, Chains: true},
	{Name: ConfigChange, Claude: []string{"ConfigChange"}, Blocks: true, Chains: true},
	{Name: WorktreeCreate, Claude: []string{"WorktreeCreate"}, Blocks: true, Chains: true},
	{Name: WorktreeRemove, Claude: []string{"WorktreeRemove"}},
	{Name: InstructionsLoaded, Claude: []string{"InstructionsLoaded"}},
	{Name: CwdChanged, Claude: []string{"CwdChanged"}},
	{Name: FileChanged, Claude: []string{"FileChanged"}},
	{Name: DirectoryAdded, Claude: []string{"DirectoryAdded"}},
	{Name: MessageDisplay, Claude: []string{"MessageDisplay"}},
}

// eventIndex is the table's names and indexes, built at first use:
// nothing runs at start-up for the commands that never look an event up
// (version, the listings of skills).
var eventIndex = lazy.Value[eventTables]{New: func() eventTables {
	t := eventTables{names: make([]string, len(events)), byName: map[string]Event{}, byClaude: map[string]Event{}}
	for i, e := range events {
		t.names[i] = e.Name
		t.byName[e.Name] = e
		for _, ce := range e.Claude {
			t.byClaude[ce] = e
		}
	}
	return t
}}

type eventTables struct {
	names            []string
	byName, byClaude map[string]Event
}

// Events lists quiver's event names in the order the docs present them.
// The list is shared: callers must not change it.
func Events() []string { return eventIndex.Get().names }

func byName() map[string]Event { return eventIndex.Get().byName }

func byClaude() map[string]Event { return eventIndex.Get().byClaude }

// Lookup returns quiver's event named name.
func Lookup(name string) (Event, bool) {
	e, ok := byName()[name]
	return e, ok
}

// EventsStarting lists the events whose names start with prefix, for
// shell completion.
func EventsStarting(prefix string) []string {
	var out []string
	for _, e := range Events() {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// UnknownEvent says that name is none of quiver's events, with the one
// it most likely meant: the event it begins, or that begins with it, or
// whose name as Claude's it is; else the list of §8's six and where the
// others are.
func UnknownEvent(name string) string {
	lower := strings.ToLower(name)
	for _, e := range events {
		claude := false
		for _, c := range e.Claude {
			claude = claude || strings.EqualFold(c, name)
		}
		if claude || (len(lower) >= 4 && (strings.HasPrefix(e.Name, lower) || strings.HasPrefix(lower, e.Name))) {
			return fmt.Sprintf("%q is not a quiver event; did you mean %s?", name, e.Name)
		}
	}
	return fmt.Sprintf("%q is not a quiver event; want one of %s, or another of Claude Code's events in snake_case (docs/hooks.md)", name, strings.Join(Events()[:6], ", "))
}

// ValidEvent reports whether s is one of quiver's events.
func ValidEvent(s string) bool {
	_, ok := byName()[s]
	return ok
}

// QuiverEvent maps a Claude event to quiver's (SPEC §11, §15); ok is
// false for a name Claude Code does not have.
func QuiverEvent(claudeEvent string) (string, bool) {
	e, ok := byClaude()[claudeEvent]
	return e.Name, ok
}

// KnownEvent reports the event names Claude Code's hooks reference has;
// anything else in a hooks.json is probably a typo.
func KnownEvent(name string) bool {
	_, ok := byClaude()[name]
	return ok
}

// BlockingEvent reports the events a hook can block (Event.Blocks),
// named as quiver or as Claude.
func BlockingEvent(event string) bool { return find(event).Blocks }

// ChainedEvent reports the events whose hooks run one after another
// (Event.Chains), named as quiver or as Claude.
func ChainedEvent(event string) bool { return find(event).Chains }

// ToolEvent reports the events about one tool call, named as Claude
// (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest,
// PermissionDenied) or as quiver: their matcher is tested against
// tool_name, and they alone evaluate an `if` condition. Claude skips a
// handler with an `if` on any other event.
func ToolEvent(event string) bool { return find(event).Tool }

// PlainContextEvent reports the events on which a Claude handler's plain
// stdout is context for the model.
func PlainContextEvent(event string) bool { return find(event).PlainContext }

func find(event string) Event {
	if e, ok := byName()[event]; ok {
		return e
	}
	return byClaude()[event]
}

// Selects reports whether a handler for claudeEvent takes part in a quiver
// event whose payload says invoked_by: Stop handlers answer the main
// agent's stop, SubagentStop handlers a subagent's.
func Selects(claudeEvent, invokedBy string) bool {
	switch claudeEvent {
	case "Stop":
		return invokedBy != "subagent"
	case "SubagentStop":
		return invokedBy == "subagent"
	}
	return true
}

// matchFields is the payload field each Claude event's matcher is tested
// against; events not listed ignore their matcher (every handler runs).
func matchFields(claudeEvent string) string {
	switch claudeEvent {
	case "Notification":
		return "notification_type"
	case "UserPromptExpansion":
		return "command_name"
	case "SessionStart", "ConfigChange", "DirectoryAdded":
		return "source"
	case "SessionEnd":
		return "reason"
	case "SubagentStop", "SubagentStart":
		return "agent_type"
	case "StopFailure":
		return "error"
	case "PreCompact", "PostCompact", "Setup":
		return "trigger"
	case "PreModelSwitch", "PostModelSwitch":
		return "to_model"
	case "Elicitation", "ElicitationResult":
		return "mcp_server_name"
	case "InstructionsLoaded":
		return "load_reason"
	case "FileChanged":
		return "file_path"
	}
	return ""
}

// MatchField is the payload field a matcher of claudeEvent is tested
// against ("" when the event has no matcher: every handler runs).
func MatchField(claudeEvent string) string {
	if ToolEvent(claudeEvent) {
		return "tool_name"
	}
	return matchFields(claudeEvent)
}

// MatchValue is the value a matcher of claudeEvent is tested against,
// read from the payload by str: MatchField's, except FileChanged, whose
// matcher reads the changed file's base name.
func MatchValue(claudeEvent string, str func(string) string) string {
	v := str(MatchField(claudeEvent))
	if claudeEvent == "FileChanged" && v != "" {
		v = path.Base(strings.ReplaceAll(v, `\`, "/"))
	}
	return v
}
