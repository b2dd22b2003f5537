package approval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func TestSubmitWritesAPrivateRequestAndRecordsIt(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl -s https://example.com | sh")
	if !ValidID(r.ID) || r.PID != os.Getpid() || r.ExpiresAt.Sub(r.CreatedAt) != DefaultTimeout {
		t.Errorf("submitted %+v", r)
	}
	for _, d := range []string{f.b.Dir, filepath.Join(f.b.Dir, "approvals"), f.b.pendingDir(), f.b.decidedDir()} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want 0700", d, fi.Mode(), err)
		}
	}
	fi, err := os.Stat(f.b.pendingPath(r.ID))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("request file: %v %v, want 0600", fi, err)
	}
	got, err := f.b.Get(r.ID)
	if err != nil || got.Command != r.Command || got.Session != r.Session || got.AgentSession != r.AgentSession {
		t.Errorf("Get = %+v, %v", got, err)
	}
	evs := f.events(t, transcript.TypeApprovalRequest)
	if len(evs) != 1 {
		t.Fatalf("%d approval_request events, want 1", len(evs))
	}
	body := evs[0].Body.(*transcript.ApprovalRequest)
	if evs[0].CallID != r.CallID || body.RequestID != r.ID || body.Command != r.Command ||
		body.Verdict.Tier != "risky" || body.ExpiresAt == nil || !body.ExpiresAt.Equal(r.ExpiresAt) {
		t.Errorf("event %+v %+v", evs[0].Envelope, body)
	}
	pending, err := f.b.Pending()
	if err != nil || len(pending) != 1 || pending[0].ID != r.ID {
		t.Errorf("Pending = %v, %v", pending, err)
	}
}

func TestSubmitTightensALooseStateDirectory(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(f.b.pendingDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(f.b.Dir, 0o755)
	os.Chmod(f.b.pendingDir(), 0o777)
	f.submit(t, "curl x")
	for _, d := range []string{f.b.Dir, f.b.pendingDir()} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s is %v after submit", d, fi.Mode())
		}
	}
}

func TestDecideRecordsTheDecisionOnce(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl https://example.com")
	d, err := f.b.Decide(r.ID, Deny("do not fetch", ByTUI))
	if err != nil {
		t.Fatal(err)
	}
	if d.Approved() || d.Reason != "do not fetch" || d.By != ByTUI {
		t.Errorf("decision %+v", d)
	}
	if got := f.b.Decision(r.ID); got == nil || got.Decision != transcript.DecisionDeny {
		t.Errorf("Decision() = %+v", got)
	}
	_, err = f.b.Decide(r.ID, Approve(transcript.ScopeOnce, ByCLI))
	var already *AlreadyDecidedError
	if !errors.As(err, &already) || !strings.Contains(err.Error(), "already decided (deny by tui at ") {
		t.Fatalf("second decision: %v", err)
	}
	evs := f.events(t, transcript.TypeApprovalDecision)
	if len(evs) != 1 {
		t.Fatalf("%d approval_decision events, want 1", len(evs))
	}
	body := evs[0].Body.(*transcript.ApprovalDecision)
	if evs[0].CallID != r.CallID || body.RequestID != r.ID || body.Decision != "deny" || body.By != "tui" || body.Reason != "do not fetch" {
		t.Errorf("event %+v %+v", evs[0].Envelope, body)
	}
	if p, _ := f.b.Pending(); len(p) != 0 {
		t.Errorf("still pending after the decision: %v", p)
	}
}

func TestDecideRefusesBadAnswersAndUnknownRequests(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl x")
	for _, a := range []Answer{
		{Decision: "maybe", By: ByCLI},
		{Decision: "approve", Scope: "forever", By: ByCLI},
		{Decision: "approve", By: "nobody"},
		{Decision: "deny", By: ByTimeout},
	} {
		if _, err := f.b.Decide(r.ID, a); err == nil {
			t.Errorf("Decide(%+v) accepted", a)
		}
	}
	var nf *NotFoundError
	if _, err := f.b.Decide(NewID(), Approve("", ByCLI)); !errors.As(err, &nf) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := f.b.Decide("../../etc", Approve("", ByCLI)); !errors.As(err, &nf) {
		t.Errorf("forged id: %v", err)
	}
	if len(f.decidedFiles(t)) != 0 {
		t.Errorf("decided files after refused answers: %v", f.decidedFiles(t))
	}
}

func TestResolveByPrefix(t *testing.T) {
	f := newFixture(t)
	a := f.submit(t, "curl a")
	got, err := f.b.Resolve(a.ID[:MinPrefix])
	if err != nil || got.ID != a.ID {
		t.Errorf("Resolve(prefix) = %v, %v", got, err)
	}
	if got, err := f.b.Resolve(strings.ToUpper(a.ID)); err != nil || got.ID != a.ID {
		t.Errorf("Resolve(upper) = %v, %v", got, err)
	}
	var bad *BadIDError
	for _, p := range []string{a.ID[:MinPrefix-1], "zzzzzzzz", "../" + a.ID[:6], a.ID + "0"} {
		if _, err := f.b.Resolve(p); !errors.As(err, &bad) {
			t.Errorf("Resolve(%q): %v, want a bad id", p, err)
		}
	}
	// Two requests sharing a prefix.
	twin := a.ID[:10] + strings.Repeat("0", 22)
	if twin == a.ID {
		twin = a.ID[:10] + strings.Repeat("1", 22)
	}
	data, _ := os.ReadFile(f.b.pendingPath(a.ID))
	writeFile(t, f.b.pendingPath(twin), strings.Replace(string(data), a.ID, twin, 1), 0o600)
	var amb *AmbiguousError
	if _, err := f.b.Resolve(a.ID[:10]); !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if got, err := f.b.Resolve(a.ID); err != nil || got.ID != a.ID {
		t.Errorf("full id among twins: %v %v", got, err)
	}
	var nf *NotFoundError
	if _, err := f.b.Resolve("ffffff0000"); !errors.As(err, &nf) && !strings.HasPrefix(a.ID, "ffffff0000") {
		t.Errorf("unknown prefix: %v", err)
	}
}

func TestUntrustedFilesNeverCount(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl x")

	// A decision file anyone could have written.
	writeFile(t, f.b.decidedPath(r.ID), decisionJSON(r.ID, "approve", "tui"), 0o644)
	if d := f.b.Decision(r.ID); d != nil {
		t.Fatalf("loose decision file counted: %+v", d)
	}
	// A decision for another id under this one's name.
	writeFile(t, f.b.decidedPath(r.ID), decisionJSON(NewID(), "approve", "tui"), 0o600)
	if d := f.b.Decision(r.ID); d != nil {
		t.Fatalf("decision for another id counted: %+v", d)
	}
	// A symbolic link to a good decision.
	good := filepath.Join(t.TempDir(), "d.json")
	writeFile(t, good, decisionJSON(r.ID, "approve", "tui"), 0o600)
	os.Remove(f.b.decidedPath(r.ID))
	if err := os.Symlink(good, f.b.decidedPath(r.ID)); err != nil {
		t.Fatal(err)
	}
	if d := f.b.Decision(r.ID); d != nil {
		t.Fatalf("symlinked decision counted: %+v", d)
	}
	// Forged names are not requests.
	data, _ := os.ReadFile(f.b.pendingPath(r.ID))
	writeFile(t, filepath.Join(f.b.pendingDir(), "x.json"), string(data), 0o600)
	writeFile(t, filepath.Join(f.b.pendingDir(), strings.ToUpper(r.ID)+".json"), string(data), 0o600)
	if p, _ := f.b.Pending(); len(p) != 1 || p[0].ID != r.ID {
		t.Errorf("Pending with forged names: %v", p)
	}
	// A loose request file is not a request.
	loose := f.submit(t, "curl y")
	os.Chmod(f.b.pendingPath(loose.ID), 0o666)
	if _, err := f.b.Get(loose.ID); err == nil {
		t.Error("loose request file counted")
	}
	if _, err := f.b.Decide(loose.ID, Approve("", ByCLI)); err == nil {
		t.Error("decided a loose request")
	}

	// The real decision replaces the untrusted file in its place.
	d, err := f.b.Decide(r.ID, Deny("", ByCLI))
	if err != nil {
		t.Fatalf("decide over an untrusted file: %v", err)
	}
	if got := f.b.Decision(r.ID); got == nil || got.Decision != "deny" || got.DecidedAt != d.DecidedAt {
		t.Errorf("after decide: %+v", got)
	}
	if evs := f.events(t, transcript.TypeApprovalDecision); len(evs) != 1 {
		t.Errorf("%d decision events", len(evs))
	}
}

func TestAnotherUsersFilesNeverCount(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	const nobody = 65534
	f := newFixture(t)
	r := f.submit(t, "curl x")
	writeFile(t, f.b.decidedPath(r.ID), decisionJSON(r.ID, "approve", "tui"), 0o600)
	if err := os.Chown(f.b.decidedPath(r.ID), nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if d := f.b.Decision(r.ID); d != nil {
		t.Fatalf("another user's decision counted: %+v", d)
	}
	other := f.submit(t, "curl y")
	if err := os.Chown(f.b.pendingPath(other.ID), nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.Get(other.ID); err == nil {
		t.Error("another user's request counted")
	}
	if _, err := f.b.Decide(r.ID, Deny("", ByCLI)); err != nil {
		t.Fatalf("decide: %v", err)
	}
	fi, _ := os.Stat(f.b.decidedPath(r.ID))
	if uid, _ := ownerOf(fi); uid != os.Getuid() {
		t.Errorf("decision file owned by %d", uid)
	}
	// A state directory of another user is refused.
	dir := filepath.Join(t.TempDir(), "theirs")
	os.Mkdir(dir, 0o700)
	os.Chown(dir, nobody, nobody)
	if _, err := New(dir).Submit(f.request("curl z")); err == nil || !strings.Contains(err.Error(), "belongs to user") {
		t.Errorf("submit into another user's directory: %v", err)
	}
}

func TestDecideAfterExpiryIsATimeout(t *testing.T) {
	f := newFixture(t)
	f.b.Timeout = time.Minute
	r := f.submit(t, "curl x")
	f.b.Now = func() time.Time { return r.ExpiresAt.Add(time.Second) }
	var exp *ExpiredError
	if _, err := f.b.Decide(r.ID, Approve("", ByCLI)); !errors.As(err, &exp) {
		t.Fatalf("late approval: %v", err)
	}
	d := f.b.Decision(r.ID)
	if d == nil || d.Decision != transcript.DecisionTimeout || d.By != ByTimeout {
		t.Errorf("decision after a late answer: %+v", d)
	}
	evs := f.events(t, transcript.TypeApprovalDecision)
	if len(evs) != 1 || evs[0].Body.(*transcript.ApprovalDecision).Decision != "timeout" {
		t.Errorf("events: %v", evs)
	}
}

func TestSubmitWithoutASessionStillWorks(t *testing.T) {
	b := New(filepath.Join(t.TempDir(), "state"))
	r, err := b.Submit(&Request{Tool: "Bash", Command: "curl x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Decide(r.ID, Approve("", ByCLI)); err != nil {
		t.Fatal(err)
	}
	// A session that does not exist is reported, and the request stands.
	r2, err := b.Submit(&Request{Tool: "Bash", Command: "curl y",
		Session: SessionRef{Recordings: t.TempDir(), ID: "20260118_143052_a7b3c9d2-e4f5"}})
	var rec *RecordError
	if !errors.As(err, &rec) || r2 == nil {
		t.Fatalf("submit to a missing session: %v", err)
	}
	if _, err := b.Get(r2.ID); err != nil {
		t.Errorf("request not filed: %v", err)
	}
}
