# Shared by scripts/up.sh and scripts/test.sh: install what is missing, start what is needed.
# Installs system packages only when run as root on Debian/Ubuntu and the thing is missing;
# on a machine where Docker already runs, nothing system-wide is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.scalelab"
mkdir -p "$STATE/logs"
PNPM_VERSION=10.34.8

log() { printf '\033[1;34m[scalelab]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[scalelab] error:\033[0m %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "cannot install $* automatically (no apt-get); install it and retry"
  is_root || die "$* is missing; install it (as root: apt-get install -y $*) and retry"
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    apt-get update -qq >"$STATE/logs/apt.log" 2>&1 || die "apt-get update failed, see $STATE/logs/apt.log"
    APT_UPDATED=1
  fi
  log "installing $* (Debian packages)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$STATE/logs/apt.log" 2>&1 \
    || die "apt-get install $* failed, see $STATE/logs/apt.log"
}

ensure_node() {
  command -v node >/dev/null || apt_install nodejs npm
  # Prisma 7 needs 20.19 or later.
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
    || die "Node.js >= 20.19 is required (found $(node --version))"
}

# The pinned pnpm, installed into the checkout (never system-wide) when it is not on PATH.
ensure_pnpm() {
  export PATH="$STATE/tools/node_modules/.bin:$PATH"
  if command -v pnpm >/dev/null && [ "$(pnpm --version)" = "$PNPM_VERSION" ]; then return; fi
  log "installing pnpm@$PNPM_VERSION into $STATE/tools"
  npm install --prefix "$STATE/tools" --no-save --no-audit --no-fund "pnpm@$PNPM_VERSION" >"$STATE/logs/pnpm-install.log" 2>&1 \
    || die "installing pnpm failed, see $STATE/logs/pnpm-install.log"
}

ensure_go() {
  command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || die "Go >= 1.24 is needed to build the testbed and k6 (https://go.dev/dl); Debian 12's golang-go is too old"
  command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
  local v; v="$(go env GOVERSION)"
  [[ "$v" =~ ^go1\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 24 ] || die "Go >= 1.24 is needed to build k6 (found $v)"
}

docker_ok() { docker info >/dev/null 2>&1; }

ensure_docker() {
  if docker_ok; then return; fi
  if ! command -v dockerd >/dev/null; then
    is_root || die "no Docker engine is reachable; start Docker (or run this as root on Debian to install docker.io)"
    apt_install docker.io iptables
  fi
  is_root || die "no Docker engine is reachable and dockerd can only be started as root; start Docker and retry"
  if ! pgrep -x dockerd >/dev/null; then
    log "starting dockerd (log: $STATE/logs/dockerd.log)"
    # setsid: the engine must outlive this script and its terminal.
    setsid nohup dockerd >"$STATE/logs/dockerd.log" 2>&1 < /dev/null &
  fi
  for _ in $(seq 1 60); do docker_ok && return; sleep 1; done
  die "dockerd did not answer within 60 s, see $STATE/logs/dockerd.log"
}

# Compose v2, as the Docker CLI plugin `docker compose`. Debian 12 has only docker-compose 1.29 (the
# Python v1). Where `docker compose version` is not v2:
# - on amd64 Debian, Debian 13's package of Compose v2 (a static Go binary that needs only libc6 >=
#   2.34; Debian 12 has 2.36), fetched from the Debian archive and checked against its SHA-256 from
#   trixie's package index: a few seconds;
# - elsewhere, or if that fails, its Go module compiled (95 s on this 2-core machine on 2026-11-26).
#   v2.28.1: v2.35.1 and v2.40.x fail to `go install` (an `exclude` directive in their go.mod).
# Either is kept in the lab's cache directory (~/.cache/scalelab) and copied to the CLI's plugin
# directory.
COMPOSE_VERSION=v2.28.1
COMPOSE_DEB_VERSION=2.26.1-4
COMPOSE_DEB_SHA256=47681197cb2b1ab88206b42a1a92fc75f50d9530a6322d03494a473eed0408ea
# compose_from_debian DIR: Debian's plugin into DIR/docker-compose; fails where it cannot.
compose_from_debian() {
  local dir="$1" deb="docker-compose_${COMPOSE_DEB_VERSION}_amd64.deb"
  command -v dpkg-deb >/dev/null && [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || return 1
  curl -fsS --max-time 120 -o "$dir/$deb" "http://deb.debian.org/debian/pool/main/d/docker-compose/$deb" \
    && echo "$COMPOSE_DEB_SHA256  $dir/$deb" | sha256sum -c --quiet - \
    && dpkg-deb -x "$dir/$deb" "$dir/deb" \
    && mv "$dir/deb/usr/libexec/docker/cli-plugins/docker-compose" "$dir/docker-compose" \
    && rm -rf "$dir/deb" "$dir/$deb" \
    && [[ "$("$dir/docker-compose" version --short 2>/dev/null)" =~ ^v?2\. ]]
}
ensure_compose() {
  if [[ "$(docker compose version --short 2>/dev/null)" =~ ^v?2\. ]]; then return; fi
  local root="${SCALELAB_CACHE_DIR:-$HOME/.cache/scalelab}/docker-compose"
  local plugins="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
  local cache="$root/debian-$COMPOSE_DEB_VERSION"
  if [ ! -x "$cache/docker-compose" ]; then
    local tmp="$cache.tmp-$$"
    rm -rf "$tmp"; mkdir -p "$tmp"
    if compose_from_debian "$tmp" >"$STATE/logs/compose-install.log" 2>&1; then
      log "Compose v2 $COMPOSE_DEB_VERSION: Debian 13's package, checked against its SHA-256"
      rm -rf "$cache"; mv "$tmp" "$cache"
    else
      rm -rf "$tmp"
      cache="$root/$COMPOSE_VERSION"
    fi
  fi
  if [ ! -x "$cache/docker-compose" ]; then
    ensure_go
    log "compiling the Compose v2 plugin $COMPOSE_VERSION (a minute or two, once; log: $STATE/logs/compose-install.log)"
    local tmp="$cache.tmp-$$"
    rm -rf "$tmp"; mkdir -p "$tmp"
    CGO_ENABLED=0 GOBIN="$tmp" go install -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
      "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION" >>"$STATE/logs/compose-install.log" 2>&1 \
      || { rm -rf "$tmp"; tail -20 "$STATE/logs/compose-install.log" >&2; die "compiling Compose $COMPOSE_VERSION failed, see $STATE/logs/compose-install.log"; }
    mv "$tmp/cmd" "$tmp/docker-compose"
    rm -rf "$cache"; mv "$tmp" "$cache"
  fi
  mkdir -p "$plugins"
  install -m 0755 "$cache/docker-compose" "$plugins/docker-compose.tmp-$$"
  mv "$plugins/docker-compose.tmp-$$" "$plugins/docker-compose"
  [[ "$(docker compose version --short 2>/dev/null)" =~ ^v?2\. ]] \
    || die "installed $plugins/docker-compose but \`docker compose version\` still does not answer v2"
  log "Compose $(docker compose version --short) installed as $plugins/docker-compose"
}

# The Compose deployment (docker-compose.yml). Its variables come from COMPOSE_ENV_FILE (the
# checkout's .env unless SCALELAB_COMPOSE_ENV_FILE names another: the test suite's is its own).
COMPOSE_ENV_FILE="${SCALELAB_COMPOSE_ENV_FILE:-$ROOT/.env}"
COMPOSE_SECRETS=(SCALELAB_PG_ADMIN_PASSWORD SCALELAB_DB_PASSWORD SCALELAB_REDIS_PASSWORD)

# compose_cmd ARGS...: `docker compose` on the repository's file and COMPOSE_ENV_FILE.
compose_cmd() {
  docker compose --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" --env-file "$COMPOSE_ENV_FILE" "$@"
}

# compose_env_value NAME: NAME's value in COMPOSE_ENV_FILE (empty when the file or the line is missing).
compose_env_value() {
  [ -f "$COMPOSE_ENV_FILE" ] || return 0
  sed -n "s/^$1=//p" "$COMPOSE_ENV_FILE" | tail -1
}

# ensure_compose_env: COMPOSE_ENV_FILE holds every secret of docker-compose.yml, each 48 hex
# digits (URL-safe: they go into URLs unescaped) from /dev/urandom. Creates the file (mode 0600)
# or appends the missing ones; never prints a value, and refuses a file others can read.
ensure_compose_env() {
  local f="$COMPOSE_ENV_FILE" name value
  if [ -e "$f" ]; then
    [ -f "$f" ] || die "$f is not a file"
    local mode; mode="$(stat -c %a "$f")"
    [[ "$mode" =~ ^[0-7]00$ ]] || die "$f holds secrets and is readable by others (mode $mode): chmod 600 $f"
  else
    (umask 077 && : >"$f")
    log "created $f (mode 0600) for docker-compose.yml's secrets"
  fi
  # A last line without its newline would swallow the first one appended.
  [ ! -s "$f" ] || [ -z "$(tail -c1 "$f")" ] || echo >>"$f"
  for name in "${COMPOSE_SECRETS[@]}"; do
    grep -q "^$name=" "$f" || continue
    [[ "$(compose_env_value "$name")" =~ ^[A-Za-z0-9._~-]{16,128}$ ]] \
      || die "$name in $f must be 16–128 URL-safe characters (letters, digits, . _ ~ -): it goes into URLs unescaped"
  done
  for name in "${COMPOSE_SECRETS[@]}"; do
    grep -q "^$name=" "$f" && continue
    value="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
    [[ "$value" =~ ^[0-9a-f]{48}$ ]] || die "could not generate a secret for $name"
    printf '%s=%s\n' "$name" "$value" >>"$f"
    log "generated $name into $f"
  done
}

# check_compose_settings: the settings docker-compose.yml reads from the environment or .env, each
# checked with a sentence naming it and what it may be (Compose would pass a bad one on as it is).
check_compose_settings() {
  local name value
  for name in SCALELAB_WEB_PORT SCALELAB_POSTGRES_PORT SCALELAB_REDIS_PORT; do
    value="${!name:-$(compose_env_value "$name")}"
    [ -z "$value" ] || { [[ "$value" =~ ^[1-9][0-9]{0,4}$ ]] && [ "$value" -le 65535 ]; } \
      || die "$name must be a port number from 1 to 65535 (got '$value')"
  done
  value="${SCALELAB_INSTANCE:-$(compose_env_value SCALELAB_INSTANCE)}"
  [ -z "$value" ] || [[ "$value" =~ ^[a-z0-9-]{1,64}$ ]] \
    || die "SCALELAB_INSTANCE must be 1–64 lowercase letters, digits or hyphens (got '$value')"
  value="${COMPOSE_PROJECT_NAME:-$(compose_env_value COMPOSE_PROJECT_NAME)}"
  [ -z "$value" ] || [[ "$value" =~ ^[a-z0-9][a-z0-9_-]{0,62}$ ]] \
    || die "COMPOSE_PROJECT_NAME must be 1–63 lowercase letters, digits, _ or -, starting with a letter or digit (got '$value')"
  # Where the host publishes the dashboard: an IPv4 address (Compose puts it in a port mapping as it is).
  local octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
  value="${SCALELAB_WEB_BIND:-$(compose_env_value SCALELAB_WEB_BIND)}"
  [ -z "$value" ] || [[ "$value" =~ ^$octet\.$octet\.$octet\.$octet$ ]] \
    || die "SCALELAB_WEB_BIND must be an IPv4 address, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface) (got '$value')"
  value="${SCALELAB_AUTH:-$(compose_env_value SCALELAB_AUTH)}"
  [ -z "$value" ] || [[ "$value" =~ ^(auto|required)$ ]] || die "SCALELAB_AUTH must be auto or required (got '$value')"
  value="${SCALELAB_ALLOWED_HOSTS:-$(compose_env_value SCALELAB_ALLOWED_HOSTS)}"
  [ -z "$value" ] || [[ "$value" =~ ^[A-Za-z0-9.:-]+(,[A-Za-z0-9.:-]+)*$ ]] \
    || die "SCALELAB_ALLOWED_HOSTS must be host names or IP addresses, comma-separated, no spaces, ports or schemes (got '$value')"
  return 0
}

# ensure_compose_ca: the host's extra certificate authorities (a network that intercepts TLS) into
# the app image's build context, where its Dockerfile installs them; stale ones are removed.
ensure_compose_ca() {
  local dir="$ROOT/packages/images/app/ca-certificates" crt
  find "$dir" -maxdepth 1 -name '*.crt' -type f -delete
  for crt in /usr/local/share/ca-certificates/*.crt; do
    [ -f "$crt" ] && cp "$crt" "$dir/"
  done
  return 0
}

# Tools the scripts and the image bootstrap use. debootstrap builds the Debian base image
# where no registry can be reached; as non-root the base is pulled instead.
ensure_tools() {
  local missing=()
  command -v curl >/dev/null || missing+=(curl)
  if is_root && ! command -v debootstrap >/dev/null; then missing+=(debootstrap); fi
  [ "${#missing[@]}" = 0 ] || apt_install "${missing[@]}"
}

# The testbed's Go tests read the hot key from a real Redis they start on a loopback port.
ensure_redis_server() {
  command -v redis-server >/dev/null || apt_install redis-server
}

# Playwright drives Debian's Chromium (it cannot download its own browser here); elsewhere,
# point SCALELAB_CHROMIUM at a Chromium or Chrome binary.
ensure_chromium() {
  if [ -n "${SCALELAB_CHROMIUM:-}" ]; then
    [ -x "$SCALELAB_CHROMIUM" ] || die "SCALELAB_CHROMIUM=$SCALELAB_CHROMIUM is not an executable"
    return
  fi
  [ -x /usr/bin/chromium ] || apt_install chromium
}

ensure_workspace() {
  cd "$ROOT"
  log "pnpm install"
  pnpm install --frozen-lockfile --prefer-offline >"$STATE/logs/pnpm-install.log" 2>&1 \
    || { tail -30 "$STATE/logs/pnpm-install.log" >&2; die "pnpm install failed, see $STATE/logs/pnpm-install.log"; }
}

# control_plane DB_NAME REDIS_DB [--fresh]: exports DATABASE_URL and REDIS_URL. Values given in
# the environment win; the containers are started only for what is not given.
control_plane() {
  local db="$1" redis_db="$2"; shift 2
  if [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-}" ]; then
    log "using DATABASE_URL and REDIS_URL from the environment"
    (cd "$ROOT/tooling/lab" && pnpm --silent lab migrate)
    return
  fi
  local given_db="${DATABASE_URL:-}" given_redis="${REDIS_URL:-}"
  log "control plane: postgres + redis containers (database $db)"
  (cd "$ROOT/tooling/lab" && pnpm --silent lab control-plane up --database "$db" --redis-db "$redis_db" --write-env "$STATE/env.$db" "$@")
  set -a; . "$STATE/env.$db"; set +a
  [ -n "$given_db" ] && export DATABASE_URL="$given_db" && (cd "$ROOT/tooling/lab" && pnpm --silent lab migrate)
  [ -n "$given_redis" ] && export REDIS_URL="$given_redis"
  return 0
}

build_lab_images() {
  log "core lab images: testbed, nginx, k6 (first time: bootstraps a Debian base and compiles k6, several minutes)"
  log "the HAProxy, Kafka and Cassandra images are built the first time a run needs them (Kafka and Cassandra about 30 s each; the run page shows it)"
  pnpm --silent images --lab || die "building the lab images failed"
}

# wait_http URL SECONDS
wait_http() {
  local url="$1" secs="$2"
  for _ in $(seq 1 "$secs"); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 1
  done
  return 1
}

# How long stop_pidfile waits, after SIGTERM, for every process of a group to exit before it
# sends SIGKILL. The worker tears the current run's containers down on SIGTERM, which takes up
# to ~30 s; 45 s leaves room for that plus closing its Redis and Postgres connections.
STOP_TIMEOUT="${SCALELAB_STOP_TIMEOUT:-45}"

# group_members PGID: "pid args" of each live process of process group PGID (zombies left out).
group_members() {
  ps -e -o pid=,pgid=,stat=,args= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { $2 = ""; $3 = ""; sub(/ +/, " "); print }'
}

# stop_pidfile FILE: stop the process group recorded in FILE (start_bg makes its process the
# group's leader, so the pid is the group id): SIGTERM to the whole group, wait until every
# process of the group has exited, not just the leader, up to STOP_TIMEOUT seconds, and only then
# SIGKILL what is left. Says what it did.
stop_pidfile() {
  local f="$1" name; name="$(basename "$f" .pid)"
  if [ ! -f "$f" ]; then log "$name: not running (no pid file)"; return 0; fi
  local pid; pid="$(cat "$f")"
  if ! [[ "$pid" =~ ^[0-9]+$ ]]; then log "$name: ignoring $f (no pid in it)"; rm -f "$f"; return 0; fi
  local members; members="$(group_members "$pid")"
  if [ -z "$members" ]; then
    log "$name: not running (process group $pid has no process left)"
    rm -f "$f"; return 0
  fi
  log "$name: SIGTERM to process group $pid ($(wc -l <<<"$members") process(es)):"
  sed 's/^/    /' <<<"$members" >&2
  kill -TERM -- "-$pid" 2>/dev/null || true
  local start=$SECONDS
  while [ -n "$(group_members "$pid")" ] && [ $((SECONDS - start)) -lt "$STOP_TIMEOUT" ]; do sleep 0.5; done
  local left; left="$(group_members "$pid")"
  if [ -z "$left" ]; then
    log "$name: stopped, every process of group $pid exited within $((SECONDS - start)) s"
  else
    log "$name: still running after $STOP_TIMEOUT s, SIGKILL to process group $pid:"
    sed 's/^/    /' <<<"$left" >&2
    kill -KILL -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do [ -z "$(group_members "$pid")" ] && break; sleep 0.25; done
    [ -z "$(group_members "$pid")" ] && log "$name: killed" || log "$name: process group $pid survived SIGKILL: $(group_members "$pid")"
  fi
  rm -f "$f"
}

# start_bg NAME LOGFILE DIR CMD...: run CMD in DIR as the leader of a new session and process
# group, and record its pid in $STATE/NAME.pid. CMD is exec'd, never wrapped (no pnpm, no shell
# left in between), so the pid file holds the real process and its pid is the group's id.
start_bg() {
  local name="$1" logfile="$2" dir="$3"; shift 3
  local pidfile="$STATE/$name.pid"
  rm -f "$pidfile"
  # bash -c writes its own pid after setsid (whether setsid had to fork or not), then execs CMD.
  (cd "$dir" && exec setsid nohup bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@") >"$logfile" 2>&1 </dev/null &
  for _ in $(seq 1 50); do [ -s "$pidfile" ] && break; sleep 0.1; done
  [ -s "$pidfile" ] || { log "$name did not start, see $logfile"; return 1; }
  log "$name: started, pid $(cat "$pidfile") (log: $logfile)"
}

# start_worker NAME: the run worker on DATABASE_URL / REDIS_URL, as node itself (tsx as a loader,
# the same command as `pnpm --filter @scalelab/worker start`).
start_worker() {
  start_bg "$1" "$STATE/logs/$1.log" "$ROOT/apps/worker" \
    env DATABASE_URL="$DATABASE_URL" REDIS_URL="$REDIS_URL" node --import tsx src/main.ts
}

# Where `next build` puts the web (apps/web/src/env.ts nextDistDir): the dashboard's build, and the
# test suite's own, so that building the one never removes the chunks the other is serving.
WEB_DIST=.next
E2E_WEB_DIST=.next-e2e

# build_web DIST LOGFILE: `next build` into apps/web/DIST; on failure the log's tail is shown.
build_web() {
  SCALELAB_WEB_DIST_DIR="$1" pnpm --filter @scalelab/web build >"$2" 2>&1 || { tail -40 "$2" >&2; return 1; }
}

# start_web NAME PORT DIST: the web built into apps/web/DIST on 127.0.0.1:PORT, as Next's own
# binary (it execs node). SCALELAB_LISTEN_HOST tells the web it is on loopback: API tokens optional.
start_web() {
  start_bg "$1" "$STATE/logs/$1.log" "$ROOT/apps/web" \
    env DATABASE_URL="$DATABASE_URL" REDIS_URL="$REDIS_URL" PORT="$2" SCALELAB_WEB_DIST_DIR="$3" SCALELAB_LISTEN_HOST=127.0.0.1 \
    node_modules/.bin/next start -p "$2" -H 127.0.0.1
}

# The contract fuzz (scripts/test.sh): schemathesis, pinned, in a virtual environment of its own.
SCHEMATHESIS_VERSION=4.32.5
SCHEMATHESIS_VENV="$STATE/schemathesis"

# ensure_schemathesis: creates the virtual environment when it is missing or holds another
# version; kept between runs (and pip keeps its own download cache).
ensure_schemathesis() {
  local st="$SCHEMATHESIS_VENV/bin/st"
  [ -x "$st" ] && [ "$("$st" --version 2>/dev/null)" = "st, version $SCHEMATHESIS_VERSION" ] && return 0
  command -v python3 >/dev/null || apt_install python3 python3-venv
  python3 -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
  log "installing schemathesis $SCHEMATHESIS_VERSION into $SCHEMATHESIS_VENV (log: $STATE/logs/schemathesis-install.log)"
  rm -rf "$SCHEMATHESIS_VENV"
  { python3 -m venv "$SCHEMATHESIS_VENV" && "$SCHEMATHESIS_VENV/bin/pip" install "schemathesis==$SCHEMATHESIS_VERSION"; } \
    >"$STATE/logs/schemathesis-install.log" 2>&1 || { tail -20 "$STATE/logs/schemathesis-install.log" >&2; rm -rf "$SCHEMATHESIS_VENV"; return 1; }
}

# wait_worker NAME SECONDS: until the worker's log says it started; fails (showing the log) if it
# exits first, e.g. because another worker holds the database.
wait_worker() {
  local name="$1" secs="$2" pid; pid="$(cat "$STATE/$1.pid")"
  local logfile="$STATE/logs/$name.log"
  for _ in $(seq 1 $((secs * 2))); do
    grep -q "worker started" "$logfile" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { tail -30 "$logfile" >&2; log "$name exited, see $logfile"; return 1; }
    sleep 0.5
  done
  tail -30 "$logfile" >&2; log "$name did not start within $secs s, see $logfile"; return 1
}
