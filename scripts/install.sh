#!/usr/bin/env bash
# Installs photos (the binary, its man pages and its bash, zsh and fish completions) under
# $DESTDIR$PREFIX, or removes exactly those files. `make install`, `make uninstall` and `make deb`
# run it; tests run it with the debug binary.
#
# Usage: scripts/install.sh install|uninstall
#   PREFIX        where photos lives once installed (default /usr/local)
#   DESTDIR       a staging root prepended to every path (default: none)
#   PHOTOS_BIN    the binary to install (install only; it also writes the completion scripts)
#   MAN_SOURCE    the folder swift-argument-parser's generate-manual plugin wrote the pages to
#   ZSH_DIR       zsh's folder under PREFIX (default share/zsh/site-functions; Debian's own
#                 packages use share/zsh/vendor-completions)
#   GZIP_MAN=1    compress the man pages (Debian packages)
set -euo pipefail

action=${1:-}
prefix=${PREFIX:-/usr/local}
root="${DESTDIR:-}${prefix}"
bin_dir="$root/bin"
man_dir="$root/share/man/man1"
bash_dir="$root/share/bash-completion/completions"
zsh_dir="$root/${ZSH_DIR:-share/zsh/site-functions}"
fish_dir="$root/share/fish/vendor_completions.d"

fail() {
  echo "install.sh: $*" >&2
  exit 1
}

install_files() {
  [ -n "${PHOTOS_BIN:-}" ] && [ -x "$PHOTOS_BIN" ] || fail "PHOTOS_BIN names no executable: '${PHOTOS_BIN:-}'"
  [ -n "${MAN_SOURCE:-}" ] && [ -f "$MAN_SOURCE/photos.1" ] || fail "no man pages in '${MAN_SOURCE:-}' (make man writes them)"

  install -d -m 755 "$bin_dir" "$man_dir" "$bash_dir" "$zsh_dir" "$fish_dir"
  install -m 755 "$PHOTOS_BIN" "$bin_dir/photos"
  # Without its debug information: a third of the release binary, and it names the folders it
  # was built in. The symbols stay, for crash backtraces.
  # (GNU strip; BSD's says -S.)
  if command -v strip >/dev/null; then strip --strip-debug "$bin_dir/photos" 2>/dev/null || strip -S "$bin_dir/photos" || true; fi

  local page name
  for page in "$MAN_SOURCE"/photos.1 "$MAN_SOURCE"/photos.*.1; do
    name=$(basename "$page")
    # The `help` pseudo-command has nothing a page would add.
    [ "$name" = photos.help.1 ] && continue
    # generate-manual copies a command's discussion into the page as it is written for
    # --help. There a blank line means a new paragraph (mdoc warns about blank lines), and lines
    # indented by two spaces are examples or lists: they become literal blocks, or man fills and
    # hyphenates them like prose and copying an example gives a wrong command. The `help`
    # pseudo-command, whose page is not installed, leaves SEE ALSO.
    # A subcommand's NAME is `photos-list`, as git names its pages, so that whatis and apropos
    # (man-db's lexgrog) can read it; `photos list` could not be, and the page was not found.
    # Its SYNOPSIS keeps the command as it is typed. The summary loses its quotes there too.
    awk '
      /^\.Nm "[^"]*"$/ && !named { name = substr($0, 6, length($0) - 6); named = 1; n = name; gsub(/ /, "-", n); print ".Nm " n; next }
      /^\.Nm$/ && named { print ".Nm \"" name "\""; next }
      /^\.Nd "[^"]*"$/ { print ".Nd " substr($0, 6, length($0) - 6); next }
      /^  / { if (!literal) { print ".Bd -literal -offset indent"; literal = 1 } print; next }
      literal { print ".Ed"; literal = 0 }
      /^$/ { print ".Pp"; next }
      /^\.Xr photos\.help 1/ { next }
      # No hyphenation: option values and variable names (PHOTOS_CACHE_DIR) must copy whole.
      /^\.(Os|Sh|Pp|It)/ { print; print ".nh"; next }
      { print }
      END { if (literal) print ".Ed" }
    ' "$page" >"$man_dir/$name"
    chmod 644 "$man_dir/$name"
    if [ "${GZIP_MAN:-}" = 1 ]; then gzip -9nf "$man_dir/$name"; fi
  done

  "$PHOTOS_BIN" --generate-completion-script bash >"$bash_dir/photos"
  "$PHOTOS_BIN" --generate-completion-script zsh >"$zsh_dir/_photos"
  "$PHOTOS_BIN" --generate-completion-script fish >"$fish_dir/photos.fish"
  chmod 644 "$bash_dir/photos" "$zsh_dir/_photos" "$fish_dir/photos.fish"
}

uninstall_files() {
  rm -f "$bin_dir/photos" "$bash_dir/photos" "$zsh_dir/_photos" "$fish_dir/photos.fish"
  rm -f "$man_dir"/photos.1 "$man_dir"/photos.*.1 "$man_dir"/photos.1.gz "$man_dir"/photos.*.1.gz
  # Folders left empty go too (never $DESTDIR$PREFIX itself); rmdir keeps any that hold more.
  local dir
  for dir in "$bin_dir" "$man_dir" "$root/share/man" "$bash_dir" "$root/share/bash-completion" \
    "$zsh_dir" "$(dirname "$zsh_dir")" "$fish_dir" "$root/share/fish" "$root/share"; do
    [ -d "$dir" ] && rmdir "$dir" 2>/dev/null || true
  done
}

case "$action" in
  install) install_files ;;
  uninstall) uninstall_files ;;
  *) fail "usage: scripts/install.sh install|uninstall" ;;
esac
