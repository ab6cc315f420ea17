package hooks

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// MaxPayload bounds an event payload, from stdin or a file.
const MaxPayload = 256 << 20

// ReadPayload reads an event's payload from file (a regular file or a
// pipe such as <(...), never a device) when one is named, else from
// stdin; a nil stdin (a terminal: nothing is piped in) is no payload
// rather than a hang. More than MaxPayload is an error, not a truncated
// payload.
func ReadPayload(file string, stdin io.Reader) ([]byte, error) {
	if file != "" {
		fi, err := os.Stat(file)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("read payload: %s is %s; give a file or a pipe", file, safefs.Kind(fi.Mode()))
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		defer f.Close()
		data, err := safefs.ReadAll(f, file, MaxPayload)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		return data, nil
	}
	if stdin == nil {
		return nil, nil
	}
	data, err := safefs.ReadAll(stdin, "stdin", MaxPayload)
	if err != nil {
		return nil, fmt.Errorf("read payload: %w", err)
	}
	return data, nil
}
