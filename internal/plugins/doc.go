// Package plugins knows what is installed where: plugin names and repository
// specs, the two scopes and their layout on disk, fetching a plugin (git
// repositories through the git helper, see gitwork; plain folders, links),
// the staged install with its atomic swap, the
// per-scope file lock, the lock file and the content hash.
//
// It never prints and never exits; the command layer reports what it returns.
package plugins
