//go:build !linux

package discovery

// agentAncestor is not known here: the environment markers decide.
func agentAncestor() string { return "" }
