package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// A plugin's userConfig (SPEC §16): values the user sets with `quiver
// plugin config`, which the plugin's servers read as ${user_config.KEY}.
// Plain values live with the scope (a project's in .quiver/config.yaml,
// committed and covered by trust like the lock); values the plugin marks
// sensitive live in the user's home only, under
// $QUIVER_HOME/secrets/ (0600), keyed by project, plugin and source, and
// are never printed, locked or written into an agent's file.

// ConfigKey is one key a plugin's userConfig declares.
type ConfigKey struct {
	Name, Type, Title, Description string
	Required, Sensitive            bool
	// Default is the default value as text ("" for none).
	Default string
}

// configKeyName reports whether name may be a userConfig key:
// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, as a loop (that regexp is slow to
// compile).
func configKeyName(name string) bool {
	if len(name) == 0 || len(name) > 64 || !isAlnum(name[0]) && name[0] != '_' || '0' <= name[0] && name[0] <= '9' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// parseUserConfig reads a manifest's userConfig object.
func parseUserConfig(raw json.RawMessage) ([]ConfigKey, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]struct {
		Type        string          `json:"type"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Required    bool            `json:"required"`
		Sensitive   bool            `json:"sensitive"`
		Default     json.RawMessage `json:"default"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("userConfig: %v", err)
	}
	var keys []ConfigKey
	for name, k := range m {
		if !configKeyName(name) {
			return nil, fmt.Errorf("userConfig: key %q is not a safe name", name)
		}
		c := ConfigKey{Name: name, Type: k.Type, Title: k.Title, Description: k.Description, Required: k.Required, Sensitive: k.Sensitive}
		if len(k.Default) > 0 && string(k.Default) != "null" {
			var s string
			if json.Unmarshal(k.Default, &s) == nil {
				c.Default = s
			} else {
				c.Default = string(k.Default)
			}
		}
		keys = append(keys, c)
	}
	slices.SortFunc(keys, func(a, b ConfigKey) int { return strings.Compare(a.Name, b.Name) })
	return keys, nil
}

// check says why value is not one of k's type (never quoting a
// sensitive value).
func (k ConfigKey) check(value string) error {
	shown := fmt.Sprintf("%q", value)
	if k.Sensitive {
		shown = "the value given"
	}
	switch k.Type {
	case "number":
		if _, err := strconv.ParseFloat(value, 64); err != nil {
			return fmt.Errorf("%s takes a number, not %s", k.Name, shown)
		}
	case "boolean":
		if value != "true" && value != "false" {
			return fmt.Errorf("%s takes true or false, not %s", k.Name, shown)
		}
	}
	if strings.ContainsAny(value, "\x00\n\r") {
		return fmt.Errorf("%s: a value is one line", k.Name)
	}
	return nil
}

// configFile is a scope's plain values: plugin name → key → value.
type configFile struct {
	Plugins map[string]map[string]string `yaml:"plugins"`
}

// secretsFile is a scope's sensitive values, each plugin's with the
// source they were set for.
type secretsFile struct {
	Plugins map[string]secretEntry `yaml:"plugins"`
}

type secretEntry struct {
	Source string            `yaml:"source"`
	Values map[string]string `yaml:"values"`
}

// ConfigPath is the scope's file of plain userConfig values.
func (s Scope) ConfigPath() string { return filepath.Join(s.Root, "config.yaml") }

// SecretsPath is the file of the scope's sensitive values, in the user's
// home whatever the scope: $QUIVER_HOME/secrets/global.yaml, or
// $QUIVER_HOME/secrets/<project id>.yaml.
func (s Scope) SecretsPath() string {
	if s.Machine == "" || s.Location == Global {
		return filepath.Join(s.Root, "secrets", "global.yaml")
	}
	return filepath.Join(filepath.Dir(filepath.Dir(s.Machine)), "secrets", filepath.Base(s.Machine)+".yaml")
}

func readYAML(path string, v any) error {
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// sourceKey is the source a secret is bound to: the lock's, without a
// trailing .git or slash, so that equal sources compare equal.
func sourceKey(p Plugin) string {
	s := strings.TrimSuffix(strings.TrimSuffix(p.Entry.Source, "/"), ".git")
	return s + "#" + p.Entry.Path
}

// UserConfig is what is set for plugin p: its declared keys and their
// values (secrets included; never print those).
type UserConfig struct {
	Keys   []ConfigKey
	Values map[string]string
}

// ConfigRow is one setting as plugin config lists it: a sensitive value
// is never in it, only whether it is set.
type ConfigRow struct {
	Key         string `json:"key"`
	Type        string `json:"type,omitempty"`
	Value       string `json:"value,omitempty"`
	Set         bool   `json:"set"`
	Sensitive   bool   `json:"sensitive"`
	Required    bool   `json:"required"`
	Default     string `json:"default,omitempty"`
	Description string `json:"description,omitempty"`
}

// Rows lists the plugin's settings, by key.
func (c UserConfig) Rows() []ConfigRow {
	rows := []ConfigRow{}
	for _, k := range c.Keys {
		v, set := c.Values[k.Name]
		r := ConfigRow{Key: k.Name, Type: k.Type, Set: set, Sensitive: k.Sensitive, Required: k.Required, Default: k.Default, Description: k.Description}
		if !k.Sensitive {
			r.Value = v
		}
		rows = append(rows, r)
	}
	return rows
}

// Shown is the row's value as a table shows it.
func (r ConfigRow) Shown() string {
	switch {
	case r.Sensitive && r.Set:
		return "(set, hidden)"
	case !r.Set && r.Default != "":
		return "(default " + r.Default + ")"
	case !r.Set && r.Required:
		return "(required, not set)"
	case !r.Set:
		return "(not set)"
	}
	return r.Value
}

// ParseSettings reads plugin config's KEY=VALUE arguments (KEY= unsets
// KEY); an argument that is not one is the caller's mistake (ErrUsage).
func ParseSettings(args []string) (map[string]string, error) {
	set := map[string]string{}
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, Usagef("%q is not KEY=VALUE", kv)
		}
		set[k] = v
	}
	return set, nil
}

// ConfigHeader heads the rows of ConfigRow.Row.
var ConfigHeader = []string{"KEY", "VALUE", "DESCRIPTION"}

// Row is r's row in plugin config's table: never a secret (Shown).
func (r ConfigRow) Row() []string { return []string{r.Key, r.Shown(), r.Description} }

// Missing lists the required keys with no value and no default.
func (c UserConfig) Missing() []string {
	var out []string
	for _, k := range c.Keys {
		if k.Required && c.Values[k.Name] == "" && k.Default == "" {
			out = append(out, k.Name)
		}
	}
	return out
}

// Value is key's value, else its default; ok is false for a key the
// plugin does not declare or one with neither.
func (c UserConfig) Value(key string) (string, bool) {
	for _, k := range c.Keys {
		if k.Name == key {
			if v, ok := c.Values[key]; ok {
				return v, true
			}
			return k.Default, k.Default != ""
		}
	}
	return "", false
}

// Sensitive reports a key the plugin marks sensitive.
func (c UserConfig) Sensitive(key string) bool {
	for _, k := range c.Keys {
		if k.Name == key {
			return k.Sensitive
		}
	}
	return false
}

// ReadUserConfig reads the keys p declares and the values set for them.
// A secret set for another source of the plugin is not its.
func ReadUserConfig(p Plugin) (UserConfig, error) {
	c := UserConfig{Values: map[string]string{}}
	if p.Contents.Manifest != nil {
		c.Keys = p.Contents.Manifest.UserConfig
	}
	if len(c.Keys) == 0 {
		return c, nil
	}
	var plain configFile
	if err := readYAML(p.Scope.ConfigPath(), &plain); err != nil {
		return c, err
	}
	var secrets secretsFile
	if err := readYAML(p.Scope.SecretsPath(), &secrets); err != nil {
		return c, err
	}
	name := p.Name.String()
	for _, k := range c.Keys {
		if k.Sensitive {
			if e, ok := secrets.Plugins[name]; ok && e.Source == sourceKey(p) {
				if v, ok := e.Values[k.Name]; ok {
					c.Values[k.Name] = v
				}
			}
		} else if v, ok := plain.Plugins[name][k.Name]; ok {
			c.Values[k.Name] = v
		}
	}
	return c, nil
}

// SetUserConfig sets (or, for an empty value, unsets) values of p's
// userConfig: each key must be declared, each value of its type. Plain
// values go to the scope's config.yaml, sensitive ones to the user's
// secrets file (0600). Nothing is written when one is wrong.
func SetUserConfig(p Plugin, set map[string]string) error {
	c, err := ReadUserConfig(p)
	if err != nil {
		return err
	}
	declared := map[string]ConfigKey{}
	for _, k := range c.Keys {
		declared[k.Name] = k
	}
	for key, v := range set {
		k, ok := declared[key]
		if !ok {
			names := slices.Sorted(func(yield func(string) bool) {
				for n := range declared {
					if !yield(n) {
						return
					}
				}
			})
			if len(names) == 0 {
				return fmt.Errorf("plugin %s declares no userConfig", p.Name)
			}
			return fmt.Errorf("plugin %s has no setting %q; it has %s", p.Name, key, strings.Join(names, ", "))
		}
		if v != "" {
			if err := k.check(v); err != nil {
				return err
			}
		}
	}
	name := p.Name.String()
	var plain configFile
	if err := readYAML(p.Scope.ConfigPath(), &plain); err != nil {
		return err
	}
	var secrets secretsFile
	if err := readYAML(p.Scope.SecretsPath(), &secrets); err != nil {
		return err
	}
	plainChanged, secretChanged := false, false
	for key, v := range set {
		if declared[key].Sensitive {
			e := secrets.Plugins[name]
			if e.Source != sourceKey(p) {
				e = secretEntry{Source: sourceKey(p)} // set for another source: dropped
			}
			if e.Values == nil {
				e.Values = map[string]string{}
			}
			if v == "" {
				delete(e.Values, key)
			} else {
				e.Values[key] = v
			}
			if secrets.Plugins == nil {
				secrets.Plugins = map[string]secretEntry{}
			}
			if len(e.Values) == 0 {
				delete(secrets.Plugins, name)
			} else {
				secrets.Plugins[name] = e
			}
			secretChanged = true
			continue
		}
		if plain.Plugins == nil {
			plain.Plugins = map[string]map[string]string{}
		}
		if plain.Plugins[name] == nil {
			plain.Plugins[name] = map[string]string{}
		}
		if v == "" {
			delete(plain.Plugins[name], key)
		} else {
			plain.Plugins[name][key] = v
		}
		if len(plain.Plugins[name]) == 0 {
			delete(plain.Plugins, name)
		}
		plainChanged = true
	}
	if secretChanged {
		if err := writeYAML(p.Scope.SecretsPath(), secrets, len(secrets.Plugins) == 0, 0o600); err != nil {
			return err
		}
	}
	if plainChanged {
		return writeYAML(p.Scope.ConfigPath(), plain, len(plain.Plugins) == 0, 0o644)
	}
	return nil
}

// writeYAML replaces path with v (atomically), or removes it when empty.
func writeYAML(path string, v any, empty bool, perm fs.FileMode) error {
	if empty {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	head := "# written by quiver plugin config\n"
	return WriteFileAtomic(path, append([]byte(head), data...), perm)
}
