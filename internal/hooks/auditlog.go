package hooks

import (
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// AuditLog appends one JSON line per hook execution (QUIVER_AUDIT_LOG).
// Lines are written with O_APPEND in one write each, so concurrent quiver
// processes can share the file.
type AuditLog struct {
	mu  sync.Mutex
	f   *os.File
	now func() time.Time
	// Err keeps the first write error for the caller to report.
	Err error
}

// auditEntry is one line of the audit log.
type auditEntry struct {
	Time       string  `json:"time"`
	Event      string  `json:"event"`
	Hook       string  `json:"hook"`
	Status     Status  `json:"status"`
	DurationMS float64 `json:"duration_ms"`
	Blocked    bool    `json:"blocked"`
	Changed    bool    `json:"changed"`
}

// OpenAuditLog opens (creating) the log for appending.
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := safefs.OpenAppend(path, 0o600)
	if err != nil {
		return nil, err
	}
	return &AuditLog{f: f, now: time.Now}, nil
}

// Record appends the line for one outcome; it has the OnOutcome shape.
func (l *AuditLog) Record(event string, o Outcome, changed bool) {
	line, _ := json.Marshal(auditEntry{
		Time: l.now().UTC().Format(time.RFC3339Nano), Event: event, Hook: o.Hook.Name,
		Status: o.Status, DurationMS: ms(o.Duration), Blocked: o.Status == Blocked, Changed: changed,
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(line, '\n')); err != nil && l.Err == nil {
		l.Err = err
	}
}

// Close closes the file.
func (l *AuditLog) Close() error { return l.f.Close() }
