# Sourced by the set-up scripts: debian_install PACKAGE MESSAGE installs a Debian package when
# running as root with apt-get, and otherwise stops with MESSAGE.
debian_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian's $1" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >&2
  else
    echo "setup: $2" >&2
    exit 1
  fi
}
