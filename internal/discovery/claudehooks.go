package discovery

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// hooksJSONCacheFile keeps parsed hooks.json files, so that a warm
// discovery reads no configuration it has already read.
const hooksJSONCacheFile = "hooks-json"

// parsedConfig is what the cache keeps per hooks.json: its handlers, or
// why it could not be read.
type parsedConfig struct {
	Handlers []format.Handler `json:"h,omitempty"`
	Error    string           `json:"e,omitempty"`
}

// StandaloneData is the data folder of a scope's standalone Claude
// handlers (CLAUDE_PLUGIN_DATA), beside the plugins' org@repo folders.
const StandaloneData = "standalone"

// claudeHooks turns one hook configuration of a source into hook items,
// one per handler in file order, named "<prefix><file>/<Event>.<n>". A
// configuration that cannot be read becomes one invalid item named after
// the file, so that a broken guard is reported, never dropped.
func claudeHooks(l plugins.Layout, s source, hf plugins.HookFile, cfgs *caches[parsedConfig]) []Hook {
	base := Hook{Location: s.location, Plugin: s.plugin, Format: FormatClaude, Path: hf.Path, PluginRoot: s.root, DataDir: s.dataDir, plugin: s.installed}
	if s.plugin.IsZero() {
		// A scope's standalone handlers belong to its hooks folder, the
		// one the trust fingerprint covers: with the scope's folder as
		// their root, ${CLAUDE_PLUGIN_ROOT}/recipes/x.sh in a project
		// ran a file that trust never hashed.
		base.PluginRoot = filepath.Join(s.root, "hooks")
		base.DataDir = filepath.Join(scopeOf(l, s.location).DataRoot(), StandaloneData)
	}
	cfg := loadConfig(hf, cfgs.of(l, s.location))
	if cfg.Error != "" {
		h := base
		h.Name, h.Status, h.Reason = ItemName(s.plugin, hf.Name), Invalid, cfg.Error
		return []Hook{h}
	}
	out := make([]Hook, 0, len(cfg.Handlers))
	for i := range cfg.Handlers {
		hd := &cfg.Handlers[i]
		h := base
		h.Name = ItemName(s.plugin, hf.Name+"/"+fmt.Sprintf("%s.%d", hd.Event, hd.N))
		h.Handler = hd
		h.same = sameKey(h)
		h.Event, _ = format.QuiverEvent(hd.Event)
		h.Status = Active
		if sel, err := format.NewSelector(*hd); err == nil {
			h.Selector = sel
		}
		if hd.Problem != "" {
			h.Status, h.Reason = Invalid, hd.Problem
		}
		out = append(out, h)
	}
	return out
}

// loadConfig returns the parsed configuration, from the cache when the
// file is unchanged. An inline object is parsed from the manifest, which
// the cache keys the same way.
func loadConfig(hf plugins.HookFile, cache *fileCache[parsedConfig]) parsedConfig {
	fi, err := os.Stat(hf.Path)
	if err != nil {
		return parsedConfig{Error: err.Error()}
	}
	key := hf.Path
	if hf.Inline != nil {
		key += "#hooks"
	}
	if v, ok := cache.lookup(key, fi); ok {
		return v
	}
	var cfg *format.Config
	if hf.Inline != nil {
		cfg, err = format.ParseHooksObject(hf.Inline)
	} else {
		var data []byte
		if data, err = safefs.ReadFile(hf.Path, safefs.MaxMeta); err == nil {
			cfg, err = format.ParseConfig(data)
		}
	}
	var v parsedConfig
	if err != nil {
		v.Error = fmt.Sprintf("%s: %v", filepath.Base(hf.Path), err)
	} else {
		v.Handlers = cfg.Handlers
	}
	cache.store(key, fi, v)
	return v
}

// HandlerNames returns the unprefixed item names of the Claude handlers a
// folder's contents carry ("hooks.json/PreToolUse.1"), reading each
// configuration once, for listings of one plugin; a configuration that
// cannot be read is listed under its own name, as discovery lists it.
func HandlerNames(c plugins.Contents) []string {
	var out []string
	for _, hf := range c.HookFiles {
		cfg := loadConfig(hf, &fileCache[parsedConfig]{})
		if cfg.Error != "" {
			out = append(out, hf.Name)
			continue
		}
		for _, h := range cfg.Handlers {
			out = append(out, fmt.Sprintf("%s/%s.%d", hf.Name, h.Event, h.N))
		}
	}
	return out
}
