#!/usr/bin/env bash
# Checks the repository's references to documents and files (ctest: docs.references).
#
#   tests/docs/check_docs.sh [REPO]      (default: the repository this script is in)
#
# Exit 0: all in order; 1: offences (listed on stdout); 77: not a git work tree (ctest: skipped).
#
# Fails (exit 1) and prints one line `file:line: reason` per offence when:
#   1. a tracked file cites the old design notes kept outside the repository (the architecture
#      brief, the platform notes, the shared design/seeds folders) instead of docs/;
#   2. a `pitfall N` citation is not on a line naming docs/architecture.md, or N is not one of the
#      pitfalls numbered in docs/architecture.md;
#   3. a docs/...md path cited anywhere does not exist;
#   4. in docs/**/*.md, a repository path in backticks does not exist (a path counts as a
#      repository path when its first component is a top-level entry of the repository, so
#      `runtime/frontend/job_file.cpp` and `checkpoint/image/` are checked, `build/lib/...` and
#      `D/<epoch>/` are not; spans with placeholders or spaces are skipped);
#   5. a relative Markdown link in a tracked .md file points at nothing;
#   6. a README names a commit hash (a 7 to 40 digit hex token on a line saying "commit") or an
#      ISO date (20YY-MM-DD), except in paths into bench/results/<date>/;
#   7. a tracked file contains an absolute machine path under the work or root home directories.
# The patterns below are spelt so that this script does not match itself.
set -u -o pipefail

repo=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$repo" || { echo "check_docs.sh: cannot enter $repo" >&2; exit 2; }
# The file list comes from git: a source tree without git (a release tarball) cannot be checked.
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check_docs.sh: $repo is not a git work tree (or git refuses it); skipped" >&2
  exit 77
fi

offences=$(mktemp)
trap 'rm -f "$offences"' EXIT
report() { printf '%s\n' "$*" >>"$offences"; }

# Tracked files that exist in the work tree (a file deleted but not yet committed is skipped).
mapfile -t files < <(git ls-files | while IFS= read -r f; do [[ -f $f ]] && printf '%s\n' "$f"; done)
# Text files only (grep -I leaves binary ones out; empty files have nothing to check).
mapfile -t text_files < <(printf '%s\0' "${files[@]}" | xargs -0 grep -Il '' -- 2>/dev/null)
mapfile -t md_files < <(printf '%s\n' "${text_files[@]}" | grep -E '\.md$')
mapfile -t doc_files < <(printf '%s\n' "${md_files[@]}" | grep -E '^docs/')
mapfile -t readmes < <(printf '%s\n' "${text_files[@]}" | grep -E '(^|/)README\.md$')

# grep over a file list without ever reading stdin when the list is empty.
grep_files() {  # PATTERN-ARGS... -- FILES...
  local args=() f
  while [[ $# -gt 0 && $1 != -- ]]; do args+=("$1"); shift; done
  shift
  [[ $# -eq 0 ]] && return 0
  printf '%s\0' "$@" | xargs -0 grep -HnI "${args[@]}" -- 2>/dev/null
  return 0
}

# --- 1. citations of documents outside the repository -----------------------------------------
grep_files -E '\bARCHITECTUR[E]\b|PLATFORM_NOTE[S]|shared/(design|seeds)|[Aa]rchitecture [§]' -- "${text_files[@]}" |
  while IFS= read -r hit; do
    report "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): cites a design note outside the repository; cite docs/ instead"
  done

# --- 2. pitfall citations ----------------------------------------------------------------------
arch=docs/architecture.md
defined=""
if [[ -f $arch ]]; then
  # "N. **Title.**" items of the section "## 7. Pitfalls".
  defined=$(awk '/^## /{inside = ($0 ~ /^## 7\. Pitfalls/)} inside && /^[0-9]+\. \*\*/{sub(/\..*/, ""); print}' "$arch" | tr '\n' ' ')
fi
grep_files -E '\bpitfalls? [0-9]+' -- "${text_files[@]}" |
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; content=${rest#*:}
    [[ $file == "$arch" ]] && continue
    if [[ $content != *architecture.md* ]]; then
      report "$file:$line: 'pitfall N' without docs/architecture.md on the same line"
    fi
    for n in $(grep -oE '\bpitfalls? [0-9]+((, | and | or )[0-9]+)*' <<<"$content" | grep -oE '[0-9]+'); do
      [[ " $defined " == *" $n "* ]] || report "$file:$line: pitfall $n is not defined in $arch"
    done
  done

# --- 3. docs/...md paths cited anywhere ---------------------------------------------------------
grep_files -oE '[A-Za-z0-9_./-]*docs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md' -- "${text_files[@]}" |
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; path=${rest#*:}
    while [[ $path == ../* || $path == ./* ]]; do path=${path#../}; path=${path#./}; done
    [[ $path == docs/* ]] || continue
    [[ -f $path ]] || report "$file:$line: cites $path, which does not exist"
  done

# --- 4. repository paths in backticks in docs/ ---------------------------------------------------
mapfile -t top_level < <(printf '%s\n' "${files[@]}" | cut -d/ -f1 | sort -u)
not_a_path='[][[:space:]<>*$(){}|,;=\'"'"'"]'
is_top_level() { local t; for t in "${top_level[@]}"; do [[ $t == "$1" ]] && return 0; done; return 1; }
for file in "${doc_files[@]}"; do
  # Inline code spans of each line, outside fenced blocks.
  awk '/^```/{fence = !fence; next} !fence {
         line = $0
         while (match(line, /`[^`]+`/)) {
           print NR "\t" substr(line, RSTART + 1, RLENGTH - 2)
           line = substr(line, RSTART + RLENGTH)
         }
       }' "$file" |
    while IFS=$'\t' read -r line span; do
      [[ $span == */* ]] || continue
      # Placeholders, globs, commands and URLs are not paths.
      [[ $span =~ $not_a_path || $span == *…* || $span == *...* || $span == *://* ]] && continue
      path=${span%%#*}
      first=${path%%/*}
      [[ -n $first ]] && is_top_level "$first" || continue
      [[ -e $path ]] || report "$file:$line: \`$span\` does not exist in the repository"
    done
done

# --- 5. relative Markdown links -------------------------------------------------------------------
for file in "${md_files[@]}"; do
  dir=$(dirname "$file")
  awk '/^```/{fence = !fence; next} !fence {
         line = $0
         while (match(line, /\]\([^) \t]+\)/)) {
           print NR "\t" substr(line, RSTART + 2, RLENGTH - 3)
           line = substr(line, RSTART + RLENGTH)
         }
       }' "$file" |
    while IFS=$'\t' read -r line target; do
      [[ $target =~ ^[a-z]+: || $target == \#* || $target == /* ]] && continue
      path=${target%%#*}
      [[ -z $path ]] && continue
      [[ -e $dir/$path ]] || report "$file:$line: link to $target, which does not exist"
    done
done

# --- 6. READMEs: no commit hashes, no dates ------------------------------------------------------
for file in "${readmes[@]}"; do
  awk -v file="$file" '
    {
      line = $0
      gsub(/results\/20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]/, "results/DATE", line)
      if (line ~ /20[0-9][0-9]-[0-1][0-9]-[0-3][0-9]/) print file ":" NR ": a date in a README (measurements go to bench/results/<date>/NOTES.md)"
      if (tolower(line) ~ /commit/) {
        rest = line
        while (match(rest, /[0-9a-f]+/)) {
          token = substr(rest, RSTART, RLENGTH)
          before = RSTART > 1 ? substr(rest, RSTART - 1, 1) : ""
          after = substr(rest, RSTART + RLENGTH, 1)
          rest = substr(rest, RSTART + RLENGTH)
          if (length(token) < 7 || length(token) > 40) continue
          if (before ~ /[A-Za-z0-9_]/ || after ~ /[A-Za-z0-9_]/) continue
          if (token ~ /[0-9]/ && token ~ /[a-f]/) print file ":" NR ": a commit hash in a README (" token ")"
        }
      }
    }' "$file" >>"$offences"
done

# --- 7. absolute machine paths -------------------------------------------------------------------
grep_files -E '/(work|root)/' -- "${text_files[@]}" |
  while IFS= read -r hit; do
    report "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): absolute machine path; write a placeholder such as <build> or <repo>"
  done

if [[ -s $offences ]]; then
  sort -t: -k1,1 -k2,2n "$offences"
  echo "check_docs.sh: $(wc -l <"$offences") offence(s)" >&2
  exit 1
fi
echo "check_docs.sh: ${#text_files[@]} files, references and citations in order"
