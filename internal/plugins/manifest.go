package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// Manifest is the optional plugin.yaml of a plugin repository.
type Manifest struct {
	Name        string `yaml:"name" json:"name,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
	Version     string `yaml:"version" json:"version,omitempty"`
	Homepage    string `yaml:"homepage" json:"homepage,omitempty"`
}

// ReadManifest reads dir/plugin.yaml; a missing file is an empty manifest.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	data, err := safefs.ReadFile(filepath.Join(dir, "plugin.yaml"), safefs.MaxMeta)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("plugin.yaml: %w", err)
	}
	return m, nil
}
