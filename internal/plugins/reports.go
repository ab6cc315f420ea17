package plugins

import (
	"context"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/term"
)

// What update, outdated, install and verify report, plugin by plugin, in
// the shapes their --json prints and the lines and rows people read.

// CheckUpdate refuses an update that names no plugin and no --all, both,
// or --ref for other than one plugin.
func CheckUpdate(names int, all bool, ref string) error {
	switch {
	case names == 0 && !all:
		return Usagef("name the plugins to update, or pass --all")
	case names > 0 && all:
		return Usagef("give plugin names or --all, not both")
	case ref != "" && names != 1:
		return Usagef("--ref moves one plugin; name it")
	}
	if ref != "" {
		return AsUsage(ValidateRef(ref))
	}
	return nil
}

// UpdateLine is one plugin in plugin update --json.
type UpdateLine struct {
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	From   string `json:"from"`
	To     string `json:"to"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Line is r as plugin update --json prints it: a failure's status is
// "failed".
func (r UpdateResult) Line() UpdateLine {
	u := UpdateLine{Name: r.Name.String(), Ref: r.Ref, From: r.From, To: r.To, Status: r.Status}
	if r.Err != nil {
		u.Status, u.Error = "failed", r.Err.Error()
	}
	return u
}

// UpdateLines are plugin update --json's lines for res, never nil;
// failed says some plugin could not be updated.
func UpdateLines(res []UpdateResult) (out []UpdateLine, failed bool) {
	out = []UpdateLine{}
	for _, r := range res {
		out, failed = append(out, r.Line()), failed || r.Err != nil
	}
	return out, failed
}

// Outdated is one plugin in plugin outdated --json.
type Outdated struct {
	Name            string `json:"name"`
	Location        string `json:"location"`
	Ref             string `json:"ref"`
	Current         string `json:"current"`
	Latest          string `json:"latest"`
	Pinned          bool   `json:"pinned"`
	Local           bool   `json:"local"`
	UpdateAvailable bool   `json:"update_available"`
	Error           string `json:"error,omitempty"`
}

// OutdatedOf is what a dry-run Update of scope location found, as plugin
// outdated reports it; failed says some remote could not be asked. It is
// never nil, so JSON says [].
func OutdatedOf(res []UpdateResult, location Location) (out []Outdated, failed bool) {
	out = []Outdated{}
	for _, r := range res {
		o := Outdated{
			Name: r.Name.String(), Location: string(location), Ref: r.Ref,
			Current: r.From, Latest: r.To, Pinned: r.Status == Pinned,
			Local: r.Status == LocalSource, UpdateAvailable: r.Status == WouldUpdate,
		}
		if r.Err != nil {
			o.Error, failed = r.Err.Error(), true
		}
		out = append(out, o)
	}
	return out, failed
}

// Outdated is plugin outdated: a dry run of Update over every plugin of
// the scope, forced (local edits do not hide a newer commit), resolve
// saying what a marketplace's plugin is now (UpdateOptions.Resolve), as
// OutdatedOf reports it.
func (in *Installer) Outdated(ctx context.Context, resolve func(Name, LockEntry) (Spec, string, bool, error)) ([]Outdated, bool, error) {
	res, err := in.Update(ctx, nil, UpdateOptions{DryRun: true, Force: true, Resolve: resolve})
	if err != nil {
		return nil, false, err
	}
	out, failed := OutdatedOf(res, in.Scope.Location)
	return out, failed, nil
}

// OutdatedHeader heads the rows of Outdated.Row.
var OutdatedHeader = []string{"NAME", "LOCATION", "REF", "CURRENT", "LATEST"}

// Row is o's row in plugin outdated's table: the latest commit, or why
// there is none to move to.
func (o Outdated) Row() []string {
	latest := ShortCommit(o.Latest)
	switch {
	case o.Error != "":
		latest = "error: " + strings.Join(strings.Fields(o.Error), " ")
	case o.Pinned:
		latest = "pinned"
	case o.Local:
		latest = "local"
	case !o.UpdateAvailable:
		latest = "up to date"
	}
	return []string{o.Name, o.Location, orDash(ShortRef(o.Ref)), orDash(ShortCommit(o.Current)), latest}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Notice is what plugin install says of r in scope s, "" for nothing
// (a plugin or marketplace that matched its lock).
func (r SyncResult) Notice(s Scope) string {
	capital := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	switch {
	case r.Marketplace != "" && (r.Status == "installed" || r.Status == "repaired"):
		return capital(r.Status) + " marketplace " + r.Marketplace
	case r.Marketplace != "":
	case r.Status == "installed" || r.Status == "repaired":
		return capital(r.Status) + " " + r.Name.String()
	case r.Status == "pruned":
		return fmt.Sprintf("Removed %s, which %s no longer names", r.Name, s.LockPath())
	}
	return ""
}

// Failed reports whether r's plugin or marketplace could not be
// installed.
func (r SyncResult) Failed() bool { return r.Status == "failed" }

// Said is what plugin install says of r in scope s: its failure, else
// its notice (Notice).
func (r SyncResult) Said(s Scope) (string, error) {
	if r.Failed() {
		return "", r.Err
	}
	return r.Notice(s), nil
}

// SyncSummary is plugin install's last line: how many plugins of scope s
// were up to date, installed, repaired and failed.
func SyncSummary(res []SyncResult, s Scope) string {
	counts := map[string]int{}
	for _, r := range res {
		if r.Marketplace == "" {
			counts[r.Status]++
		}
	}
	if len(counts) == 0 {
		return NoPlugins(s.LockPath())
	}
	line := fmt.Sprintf("%s up to date with %s, %d installed, %d repaired", term.Count(counts["ok"], "plugin"), s.LockPath(), counts["installed"], counts["repaired"])
	if counts["pruned"] > 0 {
		line += fmt.Sprintf(", %d removed", counts["pruned"])
	}
	return line + fmt.Sprintf(", %d failed", counts["failed"])
}

// Drift reports whether res shows plugins that differ from the lock. A
// leftover of an interrupted command is shown, but it is no plugin and
// the next mutating command removes it: it is not drift.
func Drift(res []VerifyResult) bool {
	for _, r := range res {
		if r.Status != "ok" && r.Status != "leftover" {
			return true
		}
	}
	return false
}

// Verified is plugin verify's verdict on res, the plugins of the scope
// whose lock is lockPath: an error on any drift, else the line that says
// all match.
func Verified(res []VerifyResult, lockPath string) (string, error) {
	if Drift(res) {
		return "", fmt.Errorf("installed plugins differ from %s; plugin install repairs them", lockPath)
	}
	switch n := Matched(res); n {
	case 0:
		return NoPlugins(lockPath), nil
	case 1:
		return fmt.Sprintf("The one plugin matches %s.", lockPath), nil
	default:
		return fmt.Sprintf("All %d plugins match %s.", n, lockPath), nil
	}
}

// Matched counts the plugins of res that match the lock.
func Matched(res []VerifyResult) int {
	n := 0
	for _, r := range res {
		if r.Status == "ok" {
			n++
		}
	}
	return n
}

// VerifyHeader heads the rows of VerifyResult.Row.
var VerifyHeader = []string{"NAME", "LOCATION", "STATUS", "CHANGED"}

// Row is r's row in plugin verify's table.
func (r VerifyResult) Row() []string {
	return []string{r.Name, r.Location, r.Status, strings.Join(r.Changed, ", ")}
}

// NoPlugins is what a command that works on the plugins of a lock says
// when the lock names none.
func NoPlugins(lockPath string) string {
	return fmt.Sprintf("No plugins in %s. Add one with: quiver plugin add ORG/REPO", lockPath)
}
