package export

// SQLiteSchemaVersion is the version of the SQLite export's tables, kept in
// the cuff_export table; it changes when a column changes meaning.
const SQLiteSchemaVersion = 1

// sqliteSchema creates the tables of a SQLite export. Timestamps are text
// in RFC 3339 UTC with six fraction digits (text order is time order, and
// SQLite's date functions read them); booleans are 0/1; lists and objects
// are JSON text that json_extract reads.
const sqliteSchema = `
CREATE TABLE cuff_export (
	key   TEXT PRIMARY KEY,
	value TEXT
);
CREATE TABLE sessions (
	id                TEXT PRIMARY KEY,
	store             TEXT,
	source            TEXT,
	agent             TEXT,
	title             TEXT,
	working_directory TEXT,
	cuff_version      TEXT,
	host_os           TEXT,
	host_arch         TEXT,
	hostname          TEXT,
	git_branch        TEXT,
	git_sha           TEXT,
	started_at        TEXT,
	ended_at          TEXT,
	status            TEXT,
	size_bytes        INTEGER,
	events            INTEGER NOT NULL,
	turns             INTEGER NOT NULL,
	tool_calls        INTEGER NOT NULL,
	bash_runs         INTEGER NOT NULL,
	failures          INTEGER NOT NULL,
	approvals         INTEGER NOT NULL,
	delegations       INTEGER NOT NULL
);
CREATE TABLE events (
	session_id      TEXT NOT NULL,
	seq             INTEGER NOT NULL,
	id              TEXT,
	ts              TEXT,
	type            TEXT NOT NULL,
	v               INTEGER,
	agent_id        TEXT,
	conversation_id TEXT,
	call_id         TEXT,
	parent_call_id  TEXT,
	run_id          TEXT,
	task_id         TEXT,
	step_id         TEXT,
	raw             TEXT NOT NULL
);
CREATE TABLE bash_runs (
	event_id               TEXT,
	session_id             TEXT NOT NULL,
	seq                    INTEGER NOT NULL,
	ts                     TEXT,
	started_at             TEXT,
	call_id                TEXT,
	agent_id               TEXT,
	parent_call_id         TEXT,
	run_id                 TEXT,
	task_id                TEXT,
	step_id                TEXT,
	command                TEXT NOT NULL,
	argv                   TEXT,
	description            TEXT,
	working_directory      TEXT,
	shell                  TEXT,
	timeout_seconds        INTEGER,
	timed_out              INTEGER NOT NULL,
	exit_code              INTEGER,
	ok                     INTEGER NOT NULL,
	stdout                 TEXT,
	stderr                 TEXT,
	output_truncated       INTEGER NOT NULL,
	output_truncated_bytes INTEGER,
	environment            TEXT,
	duration_ms            INTEGER,
	interrupted            INTEGER NOT NULL,
	error_code             TEXT,
	error_message          TEXT,
	max_rss_kb             INTEGER,
	user_ms                INTEGER,
	sys_ms                 INTEGER
);
CREATE TABLE tool_calls (
	session_id       TEXT NOT NULL,
	call_id          TEXT,
	tool             TEXT,
	input            TEXT,
	agent_id         TEXT,
	parent_call_id   TEXT,
	call_event_id    TEXT,
	called_at        TEXT,
	result_event_id  TEXT,
	finished_at      TEXT,
	output           TEXT,
	output_truncated INTEGER,
	is_error         INTEGER,
	duration_ms      INTEGER
);
CREATE TABLE approvals (
	session_id        TEXT NOT NULL,
	call_id           TEXT,
	request_id        TEXT,
	tool              TEXT,
	command           TEXT,
	verdict           TEXT,
	tier              TEXT,
	rule              TEXT,
	reasons           TEXT,
	requested_at      TEXT,
	decision          TEXT,
	scope             TEXT,
	decided_by        TEXT,
	reason            TEXT,
	rule_added        TEXT,
	decided_at        TEXT
);
`

// sqliteIndexes are created after the rows are in, which is faster than
// keeping them up to date row by row.
const sqliteIndexes = `
CREATE INDEX events_session ON events (session_id, seq);
CREATE INDEX events_type ON events (type);
CREATE INDEX events_ts ON events (ts);
CREATE INDEX events_call ON events (call_id);
CREATE INDEX bash_runs_session ON bash_runs (session_id);
CREATE INDEX bash_runs_command ON bash_runs (command);
CREATE INDEX bash_runs_ts ON bash_runs (ts);
CREATE INDEX tool_calls_session ON tool_calls (session_id);
CREATE INDEX tool_calls_tool ON tool_calls (tool);
CREATE INDEX tool_calls_ts ON tool_calls (called_at);
CREATE INDEX approvals_session ON approvals (session_id);
CREATE INDEX approvals_command ON approvals (command);
`

const (
	sqlInsertEvent = `INSERT INTO events (session_id, seq, id, ts, type, v, agent_id, conversation_id,
	call_id, parent_call_id, run_id, task_id, step_id, raw) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`
	sqlInsertBash = `INSERT INTO bash_runs (event_id, session_id, seq, ts, started_at, call_id, agent_id,
	parent_call_id, run_id, task_id, step_id, command, argv, description, working_directory, shell,
	timeout_seconds, timed_out, exit_code, ok, stdout, stderr, output_truncated, output_truncated_bytes,
	environment, duration_ms, interrupted, error_code, error_message, max_rss_kb, user_ms, sys_ms)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`
	sqlInsertCall = `INSERT INTO tool_calls (session_id, call_id, tool, input, agent_id, parent_call_id,
	call_event_id, called_at) VALUES (?,?,?,?,?,?,?,?)`
	sqlSetResult = `UPDATE tool_calls SET result_event_id = ?, finished_at = ?, output = ?,
	output_truncated = ?, is_error = ?, duration_ms = ?, tool = coalesce(tool, ?) WHERE rowid = ?`
	sqlInsertResult = `INSERT INTO tool_calls (session_id, call_id, tool, agent_id, parent_call_id,
	result_event_id, finished_at, output, output_truncated, is_error, duration_ms)
	VALUES (?,?,?,?,?,?,?,?,?,?,?)`
	sqlInsertRequest = `INSERT INTO approvals (session_id, call_id, request_id, tool, command, verdict,
	tier, rule, reasons, requested_at) VALUES (?,?,?,?,?,?,?,?,?,?)`
	sqlSetDecision = `UPDATE approvals SET decision = ?, scope = ?, decided_by = ?, reason = ?,
	rule_added = ?, decided_at = ?, request_id = coalesce(request_id, ?) WHERE rowid = ?`
	sqlInsertDecision = `INSERT INTO approvals (session_id, call_id, request_id, decision, scope,
	decided_by, reason, rule_added, decided_at) VALUES (?,?,?,?,?,?,?,?,?)`
	sqlInsertSession = `INSERT OR REPLACE INTO sessions (id, store, source, agent, title, working_directory,
	cuff_version, host_os, host_arch, hostname, git_branch, git_sha, started_at, ended_at, status,
	size_bytes, events, turns, tool_calls, bash_runs, failures, approvals, delegations)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`
)
