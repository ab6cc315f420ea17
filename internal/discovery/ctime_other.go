//go:build !linux && !darwin

package discovery

// keepsChangeTime: unknown here, so no content hash is cached.
func keepsChangeTime(string) bool { return false }
