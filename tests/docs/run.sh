#!/usr/bin/env bash
# tests/docs/run.sh: the documentation stays true to the code (README.md and docs/*.md).
#   variables   every HETLA_* variable the library reads (a "HETLA_..." string in src/) has its
#               own entry (### `HETLA_...`) in docs/configuration.md, with its values and default,
#               and every entry there is read by the library; every HETLA_* name in README.md
#               and docs/ is one the library or a script of this repository reads
#   symbols     every symbol libhetla.so exports (nm -D --defined-only, and the #[no_mangle]
#               functions of src/) is named in the README's routine table and in
#               docs/routines.md; every routine the README's table names is exported
#   commands    hetla-sim --help and hetla-run --help (scripts/install.sh into a temporary
#               prefix) exit 0 within 24 lines; scripts/install.sh --help exits 0; the README's
#               C example (the ```c block that starts `/* example.c: COMMAND */`) builds and runs
#               with that command against the installed prefix
#   paths       every repository path named in README.md and docs/ exists, and every relative
#               link there (and in bench/results/log.md) reaches a file and, with #anchor, a
#               heading of it
# Prints [PASS]/[FAIL] lines and `docs: N passed, M failed`. Needs `cargo build --release` first.
set -uo pipefail
cd "$(dirname "$0")/../.."
passed=0
failed=0
pass() { echo "[PASS] docs $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] docs $1: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && tail -n 20 "$3" | sed 's/^/    | /'
    failed=$((failed + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DOCS=(README.md docs/*.md)
CONF=docs/configuration.md
ROUTINES_DOC=docs/routines.md
LIB=target/release/libhetla.so
SIM=target/release/hetla-sim
# words: one per line, sorted, unique.
words() { tr ' ' '\n' | sed '/^$/d' | sort -u; }

# ---- variables
code_vars=$(grep -rhoE '"HETLA_[A-Z0-9_]+"' src --include='*.rs' | tr -d '"' | words)
doc_vars=$(grep -oE '^### `HETLA_[A-Z0-9_]+`' "$CONF" | sed 's/^### `\(.*\)`$/\1/' | words)
undocumented=$(comm -23 <(echo "$code_vars") <(echo "$doc_vars") | tr '\n' ' ')
unread=$(comm -13 <(echo "$code_vars") <(echo "$doc_vars") | tr '\n' ' ')
if [ -z "$code_vars" ]; then
    fail "variables" "no HETLA_* string found in src/"
elif [ -z "$undocumented" ]; then
    pass "every HETLA_* variable read in src/ ($(echo "$code_vars" | wc -l)) has an entry in $CONF"
else
    fail "variables read but not documented" "$undocumented(add a '### \`NAME\`' entry to $CONF)"
fi
if [ -z "$unread" ]; then
    pass "every variable documented in $CONF is read in src/"
else
    fail "variables documented but not read" "$unread(no \"NAME\" string in src/)"
fi
# Each entry: its heading, then a Values and a Default line before the next heading.
incomplete=$(awk '
    /^#/ { if (v != "" && !(d && w)) printf "%s ", v; v = ""; d = w = 0 }
    /^### `HETLA_/ { v = $2; gsub(/`/, "", v) }
    /^- \*\*Default:\*\*/ { d = 1 }
    /^- \*\*Values:\*\*/ { w = 1 }
    END { if (v != "" && !(d && w)) printf "%s ", v }' "$CONF")
if [ -z "$incomplete" ]; then
    pass "every entry of $CONF gives its values and default"
else
    fail "entries without '- **Values:**' or '- **Default:**'" "$incomplete"
fi
stale=""
for v in $(grep -ohE 'HETLA_[A-Z0-9_]+' "${DOCS[@]}" | words); do
    grep -qx "$v" <<<"$code_vars" && continue
    grep -rqw --include='*.sh' --include='*.c' --include='*.py' --include='*.f' -- "$v" \
        scripts tests bench demo ffi-tests fortran-tests 2>/dev/null && continue
    stale+="$v "
done
if [ -z "$stale" ]; then
    pass "every HETLA_* name in README.md and docs/ is read by the library or a script"
else
    fail "HETLA_* names that nothing reads" "$stale"
fi

# ---- symbols
src_syms=$(grep -rh -A3 --include='*.rs' 'no_mangle' src | sed -n 's/.*\bfn \([A-Za-z0-9_]*\).*/\1/p' | words)
if [ -f "$LIB" ]; then
    nm_syms=$(nm -D --defined-only "$LIB" | awk '$2 ~ /^[TtWw]$/ { print $3 }' | words)
    if [ "$nm_syms" = "$src_syms" ]; then
        pass "the library's exports (nm -D) are the #[no_mangle] functions of src/ ($(echo "$nm_syms" | wc -l))"
    else
        fail "exports" "nm -D and src/ differ (a stale build?): $(diff <(echo "$nm_syms") <(echo "$src_syms") | grep '^[<>]' | tr '\n' ' ')"
    fi
else
    nm_syms=""
    fail "exports" "$LIB is missing (cargo build --release first)"
fi
syms=$(printf '%s\n%s\n' "$nm_syms" "$src_syms" | words)
# The README's routine table: the table rows of its "## Supported routines" section.
awk '/^## / { on = ($0 ~ /^## Supported routines/) } on && /^\|/' README.md >"$tmp/table"
# named SYMBOL FILE: `dpotrf`, `dpotrf_` or `hetla_version()` in FILE.
named() { grep -qE "\`${1%_}_?(\(\))?\`" "$2"; }
miss_readme=""
miss_doc=""
for s in $syms; do
    named "$s" "$tmp/table" || miss_readme+="$s "
    named "$s" "$ROUTINES_DOC" || miss_doc+="$s "
done
if [ ! -s "$tmp/table" ]; then
    fail "README routine table" "no table under '## Supported routines' in README.md"
elif [ -z "$miss_readme" ]; then
    pass "every exported symbol ($(echo "$syms" | wc -l)) is named in README.md's routine table (one row per family)"
else
    fail "exported symbols missing from README.md's routine table" "$miss_readme"
fi
if [ -z "$miss_doc" ]; then
    pass "every exported symbol is named in $ROUTINES_DOC"
else
    fail "exported symbols missing from $ROUTINES_DOC" "$miss_doc"
fi
# The table's second column names routines; each must be exported.
not_exported=""
for r in $(awk -F'|' 'NR > 2 { print $3 }' "$tmp/table" | grep -oE '`[a-z_0-9]+`' | tr -d '`' | words); do
    grep -qxE "${r%_}_?" <<<"$syms" || not_exported+="$r "
done
if [ -z "$not_exported" ]; then
    pass "every routine README.md's table names is exported"
else
    fail "README.md's table names routines libhetla.so does not export" "$not_exported"
fi

# ---- commands
# helpcheck NAME COMMAND...: exits 0, prints a usage line, at most 24 lines.
helpcheck() {
    local name=$1
    shift
    "$@" >"$tmp/help" 2>&1
    local rc=$? lines
    lines=$(wc -l <"$tmp/help")
    if [ $rc -eq 0 ] && [ "$lines" -le 24 ] && grep -q 'usage:' "$tmp/help"; then
        pass "$name: exit 0, usage in $lines lines"
    else
        fail "$name" "exit status $rc, $lines lines (at most 24, with a 'usage:' line)" "$tmp/help"
    fi
}
if [ -x "$SIM" ]; then
    helpcheck "hetla-sim --help" "$SIM" --help
    helpcheck "hetla-sim -h" "$SIM" -h
    "$SIM" >"$tmp/sim-noargs" 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then pass "hetla-sim without arguments: exit 2"; else fail "hetla-sim without arguments" "exit status $rc, not 2" "$tmp/sim-noargs"; fi
else
    fail "hetla-sim --help" "$SIM is missing (cargo build --release first)"
fi
if bash scripts/install.sh --help >"$tmp/install-help" 2>&1 && grep -q -- '--prefix' "$tmp/install-help"; then
    pass "scripts/install.sh --help"
else
    fail "scripts/install.sh --help" "no usage" "$tmp/install-help"
fi
prefix=$tmp/prefix
if bash scripts/install.sh --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    pass "scripts/install.sh --prefix (a temporary prefix)"
    run=$prefix/bin/hetla-run
    helpcheck "hetla-run --help" "$run" --help
    helpcheck "hetla-run -h" "$run" -h
    "$run" >"$tmp/run-noargs" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -q 'usage:' "$tmp/run-noargs"; then pass "hetla-run without a command: usage, exit 2"; else fail "hetla-run without a command" "exit status $rc" "$tmp/run-noargs"; fi
    got=$(env -u LD_PRELOAD "$run" sh -c 'echo "$LD_PRELOAD"')
    if [ "$got" = "$prefix/lib/libhetla.so.0" ]; then pass "hetla-run sets LD_PRELOAD to the installed library"; else fail "hetla-run" "LD_PRELOAD='$got'"; fi
    # The README's C example, built and run with the command in its first line.
    awk 'on && /^```/ { exit } on { print } /^```c$/ { getline; if ($0 ~ /^\/\* example\.c: /) { on = 1; print } }' \
        README.md >"$tmp/example.c"
    cmd=$(sed -n '1s|^/\* example\.c: \(.*\) \*/$|\1|p' "$tmp/example.c")
    if [ -z "$cmd" ]; then
        fail "README C example" "no \`\`\`c block starting with /* example.c: COMMAND */ in README.md"
    else
        if (cd "$tmp" && env -u LD_PRELOAD -u LD_LIBRARY_PATH -u HETLA_MIN_N -u HETLA_DISABLE \
            PKG_CONFIG_PATH="$prefix/lib/pkgconfig" HETLA_CACHE_DIR="$tmp/cache" \
            timeout 300 bash -c "$cmd") >"$tmp/example.log" 2>&1 &&
            grep -qE '^hetla [0-9][^:]*: dpotrf info 0, path (tiles|solver|forward)' "$tmp/example.log"; then
            pass "README C example: $cmd -> $(grep '^hetla ' "$tmp/example.log" | head -n 1)"
        else
            fail "README C example" "$cmd" "$tmp/example.log"
        fi
    fi
else
    fail "scripts/install.sh --prefix" "exit status $?" "$tmp/install.log"
fi

# ---- paths and links
# Repository paths in the text (bench/out/ is the benchmarks' build output, not in the repository).
missing=""
for p in $(grep -ohE '(^|[ `(|"'"'"'])(scripts|tests|bench|demo|sim|src|docs|include|ffi-tests|fortran-tests|\.ci)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "${DOCS[@]}" |
    sed 's/^[ `(|"'"'"']//' | grep -v '^bench/out/' | words); do
    [ -e "$p" ] || missing+="$p "
done
if [ -z "$missing" ]; then
    pass "every repository path named in README.md and docs/ exists"
else
    fail "paths named in README.md or docs/ that do not exist" "$missing"
fi
if python3 - README.md docs/*.md bench/results/log.md >"$tmp/links" 2>&1 <<'EOF'
import os, re, sys

def slugs(path):
    out, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        s = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out

bad, count = [], 0
for doc in sys.argv[1:]:
    text = open(doc, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        count += 1
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(full):
            bad.append(f"{doc}: {target} (no such file)")
        elif anchor and full.endswith(".md") and anchor not in slugs(full):
            bad.append(f"{doc}: {target} (no such heading)")
print(f"{count} links")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
then
    pass "every relative link in README.md, docs/ and bench/results/log.md resolves ($(head -n 1 "$tmp/links"))"
else
    fail "links" "$(tail -n +2 "$tmp/links" | tr '\n' ';')"
fi

echo "docs: $passed passed, $failed failed"
[ $failed -eq 0 ]
