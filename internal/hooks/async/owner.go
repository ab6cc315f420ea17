package async

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/quiver-cli/quiver/internal/proc"
)

// Owner starts the detached process that owns a run's background
// handlers, so that the run can answer without waiting for them.
type Owner struct {
	// Command makes the owner's command: quiver's hidden `hook collect`
	// (which calls Collect) itself, not a wrapper that starts it, since
	// an owner that does not take its order in time is killed by its
	// pid. Launch sets its standard files, its extra files and its
	// session.
	Command func() *exec.Cmd
	// Exited, when set, hears how an owner started here ended, if this
	// process lives that long (a hook run is gone by then; hook serve
	// and tests are not).
	Exited func(error)
}

// Supported reports whether this system can hand a running handler to
// another process (it needs pidfds, and inotify to see a session end);
// where it cannot, background handlers are waited for.
const Supported = supported

// Launch hands o to a new owner process: the jobs it must start, and
// those running here, whose output pipes, pidfd and unwritten payload it
// passes on. It returns once the owner has said it took the order; then
// nothing of the jobs is this process's. On an error the jobs are still
// this process's (Own).
func (ow *Owner) Launch(o *Order) error {
	if o.Session != "" {
		if err := prepare(o.Session); err != nil {
			return fmt.Errorf("prepare the session's folder: %w", err)
		}
	}
	// The running jobs stop being read here before the owner can read
	// them; they are read again by the owner once it has the order.
	var handed []*proc.Handover
	for i := range o.Jobs {
		j := &o.Jobs[i]
		if j.running == nil {
			continue
		}
		h, err := j.running.Detach()
		if err != nil {
			return ow.fail(o, err)
		}
		j.running, j.handover = nil, &h
		handed = append(handed, &h)
	}
	// The order's bytes, counted before any is made: an order that no
	// owner would read is not built at all (base64 makes the payloads a
	// third larger).
	size := 0
	for _, j := range o.Jobs {
		for _, b := range [][]byte{j.Stdin, j.ReadStdout, j.ReadStderr} {
			size += base64.StdEncoding.EncodedLen(len(b))
		}
	}
	if size > maxOrder {
		return ow.fail(o, fmt.Errorf("its order would take over %d bytes, more than an owner reads (%d)", size, maxOrder))
	}
	// The owner reads its order on fd 3 and says on fd 4 that it has taken
	// it; it starts or reads nothing until fd 3 then ends, which this
	// process makes happen only once it has heard it in time. So the jobs
	// are this process's until then, and the owner's after: never both's,
	// never nobody's.
	orderR, orderW, err := os.Pipe()
	if err != nil {
		return ow.fail(o, err)
	}
	defer orderW.Close()
	ackR, ackW, err := os.Pipe()
	if err != nil {
		orderR.Close()
		return ow.fail(o, err)
	}
	defer ackR.Close()
	cmd := ow.Command()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil // /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.ExtraFiles = []*os.File{orderR, ackW}
	for i := range o.Jobs {
		j := &o.Jobs[i]
		if h := j.handover; h != nil {
			for k, f := range []*os.File{h.Stdout, h.Stderr, h.Pidfd, h.Stdin} {
				if f != nil { // no stdin once the payload was all written
					j.Files[k] = 3 + len(cmd.ExtraFiles)
					cmd.ExtraFiles = append(cmd.ExtraFiles, f)
				}
			}
			j.Pid, j.ReadStdout, j.ReadStderr, j.Stdin, j.Ended = h.Pid, h.ReadStdout, h.ReadStderr, h.Unwritten, h.Ended
		}
	}
	order, err := json.Marshal(o)
	if err == nil && len(order) > maxOrder {
		err = fmt.Errorf("its order would take %d bytes, more than an owner reads (%d)", len(order), maxOrder)
	}
	if err != nil {
		orderR.Close()
		ackW.Close()
		return ow.fail(o, err)
	}
	err = cmd.Start()
	orderR.Close()
	ackW.Close()
	if err != nil {
		return ow.fail(o, err)
	}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait() // no zombie in a long-lived quiver
		close(exited)
		if ow.Exited != nil {
			ow.Exited(err)
		}
	}()
	deadline := time.Now().Add(ackTimeout)
	orderW.SetWriteDeadline(deadline)
	_, err = orderW.Write(order)
	if err == nil {
		ackR.SetReadDeadline(deadline)
		err = taken(ackR)
	}
	if err != nil {
		// Not taken in time. The owner starts nothing until fd 3 ends
		// (closed below, once it is reaped): whatever it said, the jobs
		// are this process's.
		cmd.Process.Kill()
		<-exited
		return ow.fail(o, fmt.Errorf("the owner did not take its order: %w", err))
	}
	orderW.Close() // go on: the jobs are the owner's
	for _, h := range handed {
		h.Stdout.Close()
		h.Stderr.Close()
		h.Pidfd.Close()
		if h.Stdin != nil {
			h.Stdin.Close()
		}
	}
	return nil
}

// ackTimeout bounds how long Launch waits for an owner to say it has
// taken its order: it has only to start and read it. A variable for the
// tests.
var ackTimeout = 10 * time.Second

// taken reads an owner's acknowledgement: nil once it has said it took
// its order, an error when it ended (or the read's deadline passed)
// without saying so in time.
func taken(ack *os.File) error {
	var b [1]byte
	if _, err := io.ReadFull(ack, b[:]); err != nil {
		return err
	}
	return nil
}

// fail is Launch's error when no owner took the order: its jobs are
// still this process's, for Own. Those detached already are read again
// with deadlines (starting the owner may have made their pipes blocking).
func (ow *Owner) fail(o *Order, err error) error {
	for _, j := range o.Jobs {
		if h := j.handover; h != nil {
			h.Stdout, h.Stderr = pollable(h.Stdout), pollable(h.Stderr)
			if h.Stdin != nil {
				h.Stdin = pollable(h.Stdin)
			}
		}
	}
	return fmt.Errorf("start the background owner: %w", err)
}

// pollable is f again, readable with deadlines. The copy is made
// close-on-exec at once: a hook server may be starting other handlers
// meanwhile, which must not inherit it.
func pollable(f *os.File) *os.File {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return f
	}
	f.Close()
	return inherited(fd, f.Name())
}

// timeNow is time.Now, for the owner's clock.
var timeNow = time.Now

// Own runs an order's jobs to their end in this process: it starts
// those it must, waits for those running or handed over, kills each at
// its timeout, and all of them when ctx ends or the session's folder goes
// (End). done hears each job's record as it ends, unless the session
// ended or ctx did, one record at a time. Own returns when every job has
// ended.
func Own(ctx context.Context, o Order, done func(Record)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Session != "" {
		gone, stop, err := watchGone(o.Session)
		if err != nil {
			cancel() // the session ended before its owner came
		} else {
			defer stop()
			go func() {
				select {
				case <-gone:
					cancel()
				case <-ctx.Done():
				}
			}()
		}
	}
	var wg sync.WaitGroup
	var one sync.Mutex // the jobs end in goroutines of their own
	for _, j := range o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := run(ctx, j)
			if ctx.Err() == nil {
				one.Lock()
				defer one.Unlock()
				done(record(j, r))
			}
		}()
	}
	wg.Wait()
}

// run runs one job to its end.
func run(ctx context.Context, j Job) proc.Result {
	limits := proc.Spec{MaxStdout: MaxStdout, MaxStderr: MaxStderr}
	switch {
	case j.running != nil:
		return j.running.Wait()
	case j.handover != nil:
		return proc.Adopt(ctx, *j.handover, j.Deadline, limits)
	}
	if ctx.Err() != nil {
		return proc.Result{ExitCode: -1}
	}
	limits.Path, limits.Args, limits.Dir, limits.Env, limits.Unset, limits.Stdin, limits.Timeout = j.Path, j.Args, j.Dir, j.Env, j.Unset, j.Stdin, j.Timeout
	return proc.Run(ctx, limits)
}

// Collect is the owner process's work (quiver's hidden `hook collect`):
// it reads its order from fd 3 and the files of the jobs handed over from
// the numbers the order gives, says on fd 4 that it has taken them, and
// once fd 3 ends (the hook run has heard it), owns the jobs (Own) and
// writes each one's record to the session's folder. It returns when every
// job has ended.
func Collect(ctx context.Context) error {
	in := os.NewFile(3, "order")
	if in == nil {
		return errors.New("no order on fd 3")
	}
	ack := os.NewFile(4, "ack")
	if ack == nil {
		return errors.New("no acknowledgement pipe on fd 4")
	}
	defer ack.Close()
	var o Order
	err := json.NewDecoder(io.LimitReader(in, maxOrder)).Decode(&o)
	if err != nil {
		in.Close()
		return fmt.Errorf("read the order: %w", err)
	}
	for i := range o.Jobs {
		j := &o.Jobs[i]
		if j.Pid == 0 {
			continue
		}
		h := &proc.Handover{Pid: j.Pid, ReadStdout: j.ReadStdout, ReadStderr: j.ReadStderr, Ended: j.Ended, Started: timeNow()}
		h.Stdout, h.Stderr, h.Pidfd = inherited(j.Files[0], "stdout"), inherited(j.Files[1], "stderr"), inherited(j.Files[2], "pidfd")
		if h.Stdout == nil || h.Stderr == nil || h.Pidfd == nil {
			return fmt.Errorf("job %s: its files are missing", j.Hook)
		}
		// The rest of its payload, which the hook run had not written
		// yet when it handed the handler over.
		if h.Stdin = inherited(j.Files[3], "stdin"); h.Stdin != nil {
			h.Unwritten = j.Stdin
		}
		j.handover = h
	}
	// From here the jobs are this process's: the hook run that gave the
	// order waits for this byte before it lets go of them (Launch).
	if _, err := ack.Write([]byte{1}); err != nil {
		return fmt.Errorf("acknowledge the order: %w", err)
	}
	ack.Close()
	// Wait for the go: the end of fd 3, when Launch has read the byte
	// (or its process is gone). A Launch that gave up kills this process
	// before it closes fd 3.
	io.Copy(io.Discard, in)
	in.Close()
	var mu sync.Mutex
	var errs []error
	Own(ctx, o, func(rec Record) {
		if o.Session == "" {
			return // no session: nothing would ever take it
		}
		if err := put(o.Session, o.Run, rec); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	return errors.Join(errs...)
}

// maxOrder bounds an order: payloads of a few handlers.
const maxOrder = 256 << 20

// inherited is an inherited file, readable with deadlines (pollable).
func inherited(fd int, name string) *os.File {
	if fd < 3 {
		return nil
	}
	// Inherited descriptors are not close-on-exec: without it every
	// handler this owner starts would get the others' pipes and pidfds.
	syscall.CloseOnExec(fd)
	syscall.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), name)
}
