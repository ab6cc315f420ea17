package plugins

// Flag is what a command line acting on s adds: " -g" for the user's
// scope, "" for the project's, so that advice names the command to run.
func (s Scope) Flag() string {
	if s.Location == Global {
		return " -g"
	}
	return ""
}
