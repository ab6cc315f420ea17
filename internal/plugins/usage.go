package plugins

import (
	"errors"
	"fmt"
)

// ErrUsage marks a request that is wrong whatever the disk holds: flags
// that exclude each other, a name given twice. The terminal answers it
// with the command's usage.
var ErrUsage = errors.New("usage")

// usageError is an error in what was asked; its message is its own.
type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == ErrUsage }

// Usagef returns an error in what was asked, formatted as fmt.Errorf does,
// that is ErrUsage.
func Usagef(format string, a ...any) error {
	return usageError{fmt.Errorf(format, a...)}
}

// AsUsage marks err, unchanged otherwise, as an error in what was asked.
func AsUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}
