// Package scripts exposes a project's scripts as tools: it finds them by glob
// patterns under a base directory, names them (scripts/deploy-prod.sh becomes
// script_scripts_deploy_prod), describes them from their first comment block,
// picks their interpreter, and turns a request to run one into a validated
// runner.Command.
//
// Only scripts that match the configured patterns and no exclude pattern can
// be run. Paths that leave the base directory, symlinks whose targets do,
// arguments with shell metacharacters and attempts to set blocked environment
// variables are refused with the messages users know from the scripts
// plugin's documentation. Running the command is the job of the runner
// package; this package only prepares it and reads its outcome.
//
// Discover scans a project for common script locations and reports what
// `cuff init` should suggest and warn about.
package scripts
