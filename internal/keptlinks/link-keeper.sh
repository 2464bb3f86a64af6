#!/bin/sh
# The link keeper, a -toolexec script (see package keptlinks): it runs
# every tool as asked, but hands out the binary kept under a link's build
# id in $KEPT_LINKS instead of linking it again, and keeps each binary it
# links. A binary it cannot hand out or keep (a full disk) is linked, or
# not kept: the keeper never fails a link the linker would not.
case $1 in */link|*/link.exe) ;; *) exec "$@" ;; esac
out= id= prev=
for arg in "$@"; do
	[ "$prev" = -o ] && out=$arg
	case $arg in -buildid=*) id=${arg#-buildid=} ;; esac
	prev=$arg
done
[ -n "$out" ] && [ -n "$id" ] && [ -d "$KEPT_LINKS" ] || exec "$@"
kept="$KEPT_LINKS/$(printf %s "$id" | tr -c 'A-Za-z0-9_-' _)"
[ -f "$kept" ] && cp "$kept" "$out" 2>/dev/null && exit 0
"$@" || exit
{ cp "$out" "$kept.$$" && mv "$kept.$$" "$kept"; } 2>/dev/null || rm -f "$kept.$$"
exit 0
