// Package internal holds helpers several top-level packages share: applog, settings, workspace, and testenv and tmuxtest for tests.
// applog and settings import nothing of cuff; workspace may import session, transcript, recorder/gate and recorder/approval.
package internal
