package marketplace

import (
	"fmt"
	"os"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
)

// AddOptions are plugin add's flags, which apply to every spec it is
// given.
type AddOptions struct {
	Ref, Name, Path string
	Force, Link     bool
	// AllowHiddenUnicode installs plugins whose files hold critical
	// hidden characters (SPEC §17), reporting them as warnings.
	AllowHiddenUnicode bool
}

// Check refuses flags that cannot apply to n specs, before anything else
// is read.
func (o AddOptions) Check(n int) error {
	if n > 1 && (o.Ref != "" || o.Name != "") {
		return plugins.Usagef("--ref and --name apply to a single spec")
	}
	if n > 1 && o.Path != "" {
		return plugins.Usagef("--path applies to a single spec")
	}
	if o.Ref != "" {
		if err := plugins.ValidateRef(o.Ref); err != nil {
			return plugins.AsUsage(err)
		}
	}
	return nil
}

// Requests parses and names every spec of plugin add before anything
// touches the disk: PLUGIN@MARKETPLACE through the store, anything else
// as a plugin spec read relative to dir. An entry renamed in its
// marketplace is installed under its new name, which warn is told. A
// name given twice, or a flag that does not apply to a spec, is
// plugins.ErrUsage.
func (s *Store) Requests(raws []string, o AddOptions, dir string, warn func(string)) ([]plugins.AddRequest, error) {
	var reqs []plugins.AddRequest
	seen := map[string]bool{}
	for _, raw := range raws {
		req, err := s.request(raw, o, dir, warn)
		if err != nil {
			return nil, err
		}
		if seen[req.Name.String()] {
			return nil, plugins.Usagef("plugin %s is named twice", req.Name)
		}
		seen[req.Name.String()] = true
		reqs = append(reqs, req)
	}
	return reqs, nil
}

func (s *Store) request(raw string, o AddOptions, dir string, warn func(string)) (plugins.AddRequest, error) {
	if j, ok, err := s.Job(raw); ok {
		if err != nil {
			return plugins.AddRequest{}, err
		}
		if j.Renamed != "" {
			warn(fmt.Sprintf("quiver: %s@%s was renamed to %s; installing that", j.Renamed, j.Marketplace, j.Name.Repo()+"@"+j.Marketplace))
		}
		if o.Ref != "" || o.Path != "" || o.Link {
			return plugins.AddRequest{}, plugins.Usagef("%s: a marketplace entry says where and what to fetch; --ref, --path and --link do not apply", raw)
		}
		if o.Name != "" {
			if j.Name, err = plugins.ResolveName(j.Spec, o.Name); err != nil {
				return plugins.AddRequest{}, plugins.AsUsage(err)
			}
		}
		return plugins.AddRequest{Spec: j.Spec, Name: j.Name, Force: o.Force, Marketplace: j.Marketplace, EntryManifest: j.Manifest,
			HiddenUnicode: scan.ModeFor(o.AllowHiddenUnicode)}, nil
	}
	spec, err := plugins.ParseSpec(raw, s.GitBase, dir)
	if err != nil {
		return plugins.AddRequest{}, plugins.AsUsage(err)
	}
	if o.Ref != "" {
		if spec.Ref != "" {
			return plugins.AddRequest{}, plugins.Usagef("%s: give the ref once, either after @ or with --ref", plugins.Redact(raw))
		}
		spec.Ref = o.Ref
	}
	if o.Path != "" {
		if spec.Subdir != "" {
			return plugins.AddRequest{}, plugins.Usagef("%s: give the folder once, either in the spec or with --path", plugins.Redact(raw))
		}
		if err := spec.SetSubdir(o.Path); err != nil {
			return plugins.AddRequest{}, plugins.AsUsage(err)
		}
	}
	if o.Link && !spec.IsLocal() {
		return plugins.AddRequest{}, plugins.Usagef("%s: --link needs a local folder", plugins.Redact(raw))
	}
	if spec.IsLocal() {
		if fi, err := os.Stat(spec.Path); err != nil || !fi.IsDir() {
			return plugins.AddRequest{}, fmt.Errorf("%s: no such folder %s", raw, spec.Path)
		}
	}
	name, err := plugins.ResolveName(spec, o.Name)
	if err != nil {
		return plugins.AddRequest{}, plugins.AsUsage(err)
	}
	return plugins.AddRequest{Spec: spec, Name: name, Force: o.Force, Link: o.Link, HiddenUnicode: scan.ModeFor(o.AllowHiddenUnicode),
		// A subfolder fetched from a repository may name itself in its
		// manifest (SPEC §12), unless --name did.
		FolderName: o.Name == "" && spec.Subdir != "" && !spec.IsLocal()}, nil
}
