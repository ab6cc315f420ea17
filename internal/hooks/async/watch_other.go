//go:build !linux

package async

import "errors"

const supported = false

// watchGone has no inotify to watch with here; nothing is handed to an
// owner where it is not Supported.
func watchGone(string) (<-chan struct{}, func(), error) {
	return nil, nil, errors.New("no inotify on this system")
}
