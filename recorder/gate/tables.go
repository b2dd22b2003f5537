package gate

import (
	"path"
	"strings"
)

// The sets below are functions over switch statements so that they are
// immutable and fast; they start from seed 004's PROVABLY_LOCAL and
// NETWORK_CAPABLE lists.

// localAny reports commands that stay local whatever their arguments: no
// option runs another program, opens a network connection or writes a file
// other than the standard streams.
func localAny(name string) bool {
	switch name {
	case "base64", "base32", "basenc", "basename", "bc", "cal", "ncal", "cat", "column", "comm",
		"cut", "df", "diff", "diff3", "cmp", "dirname", "du", "echo", "expand", "expr", "fmt",
		"fold", "free", "grep", "egrep", "fgrep", "zgrep", "head", "hexdump", "id", "groups",
		"locale", "ls", "dir", "vdir", "lscpu", "lsblk", "lsof", "md5sum", "md5", "mktemp", "nl",
		"nproc", "od", "paste", "pwd", "readelf", "objdump", "nm", "size", "realpath", "readlink",
		"rev", "seq", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shasum",
		"b2sum", "cksum", "sum", "stat", "strings", "tac", "tail", "tr", "type", "uname",
		"unexpand", "wc", "which", "whereis", "whoami", "printenv", "true", "false", ":", "test",
		"[", "sleep", "printf", "numfmt", "factor", "tsort", "join", "pr", "look", "ptx", "file",
		"getconf", "tput", "tty", "clear", "reset", "logname", "users", "who", "w", "last", "ps",
		"pgrep", "pstree", "pidof", "top", "htop", "vmstat", "iostat", "mpstat", "ss", "netstat",
		"lsmod", "dmesg", "arch", "zcat", "bzcat", "xzcat", "zstdcat", "lz4cat", "wait", "jobs",
		"dirs", "times", "help", "cd", "pushd", "popd", "pwdx", "jq", "gojq", "jless",
		"sw_vers", "system_profiler", "lsusb", "lspci", "dpkg-query", "apt-cache", "whatis",
		"apropos", "shellcheck", "yamllint", "hadolint", "ulimit", "umask", "shift", "exit",
		"return", "break", "continue", "unalias", "disown", "fg", "bg",
		"suspend", "logout", "caller", "shopt", "set", "unset", "hostname":
		return true
	}
	return false
}

// networkTool reports clients whose job is to talk to other machines.
func networkTool(name string) bool {
	switch name {
	case "curl", "wget", "wget2", "aria2c", "axel", "lftp", "ftp", "sftp", "tftp", "scp", "ssh",
		"sshpass", "autossh", "mosh", "rsync", "rclone", "s3cmd", "nc", "ncat", "netcat", "socat",
		"telnet", "nslookup", "dig", "host", "drill", "whois", "ping", "ping6", "traceroute",
		"traceroute6", "tracepath", "mtr", "arping", "nmap", "masscan", "zmap", "hping3", "iperf",
		"iperf3", "http", "https", "xh", "curlie", "httpie", "websocat", "wscat", "grpcurl",
		"ldapsearch", "smbclient", "tcpdump", "tshark", "openvpn", "wg", "wg-quick", "tailscale",
		"cloudflared", "ngrok", "tor", "torsocks", "proxychains", "proxychains4", "mail", "mailx",
		"sendmail", "mutt", "msmtp", "swaks", "nsupdate", "yt-dlp", "youtube-dl", "svn", "hg",
		"bzr", "fossil", "gh", "hub", "glab", "tea", "aws", "gcloud", "gsutil", "bq", "az",
		"doctl", "fly", "flyctl", "heroku", "vercel", "netlify", "wrangler", "firebase", "supabase",
		"railway", "docker", "podman", "nerdctl", "buildah", "skopeo", "crane", "kubectl", "oc",
		"helm", "k9s", "minikube", "kind", "k3d", "terraform", "tofu", "terragrunt", "pulumi",
		"ansible", "ansible-playbook", "ansible-galaxy", "vagrant", "packer", "consul", "vault",
		"nomad", "serverless", "sls", "cdk", "sam", "eksctl", "hcloud", "ibmcloud", "oci",
		"stripe", "twilio", "open", "xdg-open", "sensible-browser", "www-browser", "x-www-browser",
		"lynx", "w3m", "links", "elinks", "firefox", "chromium", "chromium-browser", "chrome",
		"google-chrome", "safari", "playwright", "puppeteer", "nmcli", "ifconfig", "route", "arp",
		"iptables", "ip6tables", "nft", "ufw", "ssh-copy-id", "ssh-keyscan", "git-lfs", "gist",
		"pastebinit", "termbin", "transfer", "croc", "magic-wormhole", "wormhole", "irssi",
		"weechat", "ftps", "ncftp", "smbget", "snmpget", "snmpwalk", "redis-cli", "psql", "mysql",
		"mongo", "mongosh", "sqlcmd", "influx", "nats", "kafkacat", "kcat", "mqtt", "mosquitto_pub",
		"mosquitto_sub", "fetch", "rsh", "rlogin", "rcp", "pwncat", "chisel", "frpc", "bore", "lt",
		"localtunnel", "sshuttle", "corkscrew", "proxytunnel", "stunnel", "iodine", "dnscat",
		"httpd", "nginx", "caddy", "apache2", "lighttpd", "gnutls-cli", "certbot", "ntpdate", "rdate",
		"fping", "nping", "delv", "kdig", "resolveip", "avahi-resolve", "ab", "wrk", "hey", "siege",
		"grpc_cli", "evans", "mitmproxy", "mitmdump", "ngrep", "dsniff", "ettercap", "hcxdumptool",
		"smtp-cli", "sendemail", "s-nail", "wormhole-william", "ipfs", "rtorrent", "transmission-cli",
		"aria2", "git-remote-http", "git-remote-https", "snowsql", "httpx", "gping", "gost", "rustscan",
		"doggo", "dog", "q", "dnslookup", "adnshost", "hurl", "restish", "bombardier", "vegeta", "k6",
		"oha", "amass", "subfinder", "nuclei", "ffuf", "gobuster", "feroxbuster", "wfuzz", "sqlmap",
		"hydra", "nikto", "dnsx", "naabu", "katana", "gau", "waybackurls", "assetfinder", "httprobe",
		"neomutt", "ssmtp", "azcopy", "s5cmd", "b2", "gdrive", "pssh", "parallel-ssh", "pdsh", "clush",
		"tsh", "salt", "lxc", "incus", "multipass", "virsh", "vboxmanage", "limactl", "colima",
		"telegram-send", "ntfy", "apprise", "chromedriver", "geckodriver", "google-chrome-stable",
		"brave-browser", "microsoft-edge", "render", "linode-cli", "scw", "vultr-cli", "aliyun",
		"civo", "koyeb", "amplify", "eb", "copilot", "rosa", "okteto", "tilt", "skaffold", "argocd",
		"flux", "cqlsh", "clickhouse-client", "usql", "pgcli", "mycli", "et", "op", "bw", "lpass",
		"doppler", "infisical", "chamber", "aws-vault":
		return true
	}
	return false
}

// interpreter reports language runtimes: given code, they can do anything.
func interpreter(name string) bool {
	switch name {
	case "python", "pypy", "ipython", "node", "nodejs", "deno", "ruby", "irb", "jruby", "perl",
		"php", "lua", "luajit", "tclsh", "wish", "expect", "rscript", "r", "julia", "java",
		"jshell", "groovy", "scala", "kotlin", "osascript", "pwsh", "powershell", "ts-node", "tsx",
		"elixir", "iex", "erl", "escript", "racket", "guile", "sbcl", "clisp", "ghci", "runghc",
		"runhaskell", "ocaml", "crystal", "gdb", "lldb", "dc", "jrunscript", "jjs", "qjs", "swipl", "octave", "matlab",
		"sage", "gp", "maxima", "nix-instantiate", "m4", "py", "pythonw", "cmd", "jsc", "d8",
		"rhino", "nashorn", "bsh", "php-cgi", "hhvm", "gjs", "cscript", "wscript", "mshta", "gnuplot",
		"duckdb", "xsltproc", "xdotool", "ydotool", "wtype", "tmuxinator":
		return true
	}
	return false
}

// editor reports editors that can run shell commands from their own
// command language.
func editor(name string) bool {
	switch name {
	case "vim", "vi", "nvim", "view", "vimdiff", "ex", "emacs", "emacsclient", "ed", "red", "kak",
		"hx", "micro", "joe", "mg":
		return true
	}
	return false
}

// shellName reports shells whose -c script mvdan.cc/sh can parse.
func shellName(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "lksh", "pdksh":
		return true
	}
	return false
}

// otherShell reports shells with a syntax of their own: their scripts are
// opaque to the gate.
func otherShell(name string) bool {
	switch name {
	case "fish", "csh", "tcsh", "nu", "xonsh", "elvish", "rc", "es", "ion", "oil", "osh", "ysh":
		return true
	}
	return false
}

// systemChange reports commands that change the machine itself: disks,
// boot, users, services, scheduled jobs, kernel modules.
func systemChange(name string) bool {
	if strings.HasPrefix(name, "mkfs") || strings.HasPrefix(name, "mke2fs") {
		return true
	}
	switch name {
	case "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs",
		"blkdiscard", "hdparm", "badblocks", "dmsetup", "cryptsetup", "lvremove", "vgremove",
		"pvremove", "lvcreate", "zpool", "zfs", "shutdown", "reboot", "halt", "poweroff", "init",
		"telinit", "systemctl", "service", "launchctl", "mount", "umount", "swapon", "swapoff",
		"losetup", "insmod", "rmmod", "modprobe", "sysctl", "useradd", "userdel", "usermod",
		"groupadd", "groupdel", "passwd", "chpasswd", "visudo", "crontab", "at", "batch",
		"chattr", "kexec", "efibootmgr", "grub-install", "update-grub", "dpkg-reconfigure",
		"diskutil", "csrutil", "nvram", "spctl", "tccutil", "killall5", "mknod", "setcap",
		"update-alternatives", "ldconfig", "debugfs", "e2fsck", "fsck", "tune2fs", "xfs_repair",
		"systemd-run", "machinectl", "sudoedit", "newgrp", "chsh", "chfn", "pam-auth-update",
		"authconfig", "semanage", "setenforce", "aa-disable":
		return true
	}
	return false
}

// shellBuiltinVar reports builtins whose arguments name variables; a name
// with an array subscript is evaluated as arithmetic, which can run
// command substitutions hidden in a quoted string.
func shellBuiltinVar(name string) bool {
	switch name {
	case "test", "[", "unset", "declare", "typeset", "local", "export", "readonly", "read",
		"printf", "mapfile", "readarray", "let", "wait", "getopts":
		return true
	}
	return false
}

// trustedDir reports directories whose programs are the system's own, so a
// program named by a path there is the program its name says.
func trustedDir(dir string) bool {
	switch path.Clean(dir) {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin",
		"/opt/homebrew/bin", "/opt/homebrew/sbin", "/opt/local/bin", "/usr/libexec",
		"/usr/lib/git-core", "/usr/local/go/bin", "/snap/bin":
		return true
	}
	return false
}

// versionedBases are program names that often carry a version suffix
// (python3.12, pip3, clang-17).
func versionedBase(name string) string {
	base := strings.TrimRight(name, "0123456789.-_")
	switch base {
	case "python", "pip", "pypy", "ruby", "perl", "php", "lua", "node", "nodejs", "gcc", "g++",
		"clang", "clang++", "java", "tclsh", "wish", "pydoc", "irb", "gem", "bundle", "go",
		"jshell", "erl", "ghc", "ghci", "swift", "julia", "idle", "cc", "c++", "ld", "bash",
		"zsh", "ksh", "sh", "mawk", "gawk", "nawk", "awk", "deno", "bun", "rscript", "pwsh",
		"ipython", "vim", "nvim", "emacs", "busybox", "perldoc", "python-config", "node-gyp",
		"lldb", "gdb":
		return base
	}
	return name
}

// progName normalises a program word: lower-case base name without a
// version suffix, and whether the word names the system's own program (no
// directory, or a trusted one).
func progName(word string) (name string, trusted bool) {
	dir, base := "", word
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		dir, base = word[:i], word[i+1:]
		if dir == "" {
			dir = "/"
		}
	}
	name = versionedBase(strings.TrimSuffix(strings.ToLower(base), ".exe"))
	return name, dir == "" || trustedDir(dir)
}

// versionQuery reports an argument list that only asks for a version or
// help text, which every known program answers without doing anything else.
func versionQuery(name string, args []arg) bool {
	if len(args) != 1 || !args[0].static() {
		return false
	}
	switch args[0].val {
	case "--version", "--help", "-help", "-version":
		return true
	case "-V":
		return name == "python" || name == "pypy" || name == "ipython"
	case "-v":
		return name == "node" || name == "nodejs" || name == "perl" || name == "php" || name == "ruby"
	case "version":
		return name == "go" || name == "kubectl" || name == "docker" || name == "helm"
	}
	return false
}
