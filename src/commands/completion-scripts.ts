// The scripts `vconsole completion SHELL` prints. Each asks `vconsole complete -- WORDS` (the
// typed words with their quoting removed, never evaluated) and reads its answer: one candidate a
// line (`VALUE` or `VALUE<tab>DESCRIPTION`), then `:N`, the directive (1: offer nothing, 2: no
// space after the word, 4: no file names). A candidate may be a VM name anyone able to name a
// VM chose, so no script ever expands or evaluates one: it is compared as a plain string and
// handed to the shell's own quoting for the line (printf %q, compadd, fish's escaping).

/** A script as written (backslashes kept), `\${` standing for the `${` a template would take for its own. */
function asWritten(text: TemplateStringsArray): string {
  return text.raw.join('').replaceAll('\\${', '${');
}

/**
 * bash, with bash-completion for the words as typed (`libvirt:web1` is one word there, though
 * bash breaks words at `:` and `=`). No compgen -W and no eval: compgen -W expands its words,
 * which ran whatever `$(...)` a VM name held.
 */
const BASH = asWritten`# bash completion for vconsole (needs the bash-completion package)
# VM names are completed literally: each candidate is compared as a plain string and quoted
# with printf %q for the line; none is expanded or evaluated.

# REPLY: the word as the command will get it, quotes and backslashes removed, nothing expanded.
__vconsole_unquote() {
    local word=$1 out='' quote='' ch i
    for ((i = 0; i < \${#word}; i++)); do
        ch=\${word:i:1}
        if [[ $quote == "'" ]]; then
            if [[ $ch == "'" ]]; then quote=''; else out+=$ch; fi
        elif [[ $ch == '\' ]]; then
            ((i++))
            ch=\${word:i:1}
            # Within double quotes a backslash escapes only $, backquote, " and itself.
            if [[ $quote == '"' && $ch != [\"\\\$\`] ]]; then out+='\'; fi
            out+=$ch
        elif [[ -z $quote && ( $ch == "'" || $ch == '"' ) ]]; then
            quote=$ch
        elif [[ $quote == '"' && $ch == '"' ]]; then
            quote=''
        else
            out+=$ch
        fi
    done
    REPLY=$out
}

# COMPREPLY: each candidate (lines after the first two arguments) that begins with the word
# typed, compared as plain strings, quoted with printf %q; less the part of the word up to its
# last : or = (COMP_WORDBREAKS), which bash keeps on the line.
__vconsole_reply() {
    local cur=$1 typed=$2 kept='' line value quoted
    shift 2
    # --flag=VALUE: the candidates are values, and bash replaces only what follows the =.
    if [[ $typed == -*=* ]]; then typed=\${typed#*=}; fi
    local breaks=\${COMP_WORDBREAKS//[^:=]/}
    if [[ -n $breaks && $cur == *["$breaks"]* ]]; then kept=\${cur%"\${cur##*["$breaks"]}"}; fi
    for line in "$@"; do
        value=\${line%%$'\t'*}
        if [[ -z $value || $value != "$typed"* ]]; then continue; fi
        printf -v quoted %q "$value"
        COMPREPLY+=("\${quoted#"$kept"}")
    done
}

__vconsole_complete() {
    local cur words cword word directive
    local -a args=() lines=()
    COMPREPLY=()
    _get_comp_words_by_ref -n "=:" cur words cword
    for word in "\${words[@]:1:cword-1}" "$cur"; do
        __vconsole_unquote "$word"
        args+=("$REPLY")
    done
    mapfile -t lines < <(vconsole complete -- "\${args[@]}" 2>/dev/null)
    if ((\${#lines[@]} == 0)) || ! [[ \${lines[-1]} =~ ^:([0-9]+)$ ]]; then return 0; fi
    directive=\${BASH_REMATCH[1]}
    if ((directive & 1)); then return 0; fi
    if ((directive & 2)); then compopt -o nospace 2>/dev/null; fi
    __vconsole_reply "$cur" "\${args[-1]}" "\${lines[@]:0:\${#lines[@]}-1}"
}

complete -F __vconsole_complete vconsole
`;

/**
 * zsh: the candidates go to compadd as an array, so zsh quotes each for the line, and a
 * `scheme:name` stays whole (zsh breaks no word at `:`; _describe would have cut it there).
 */
const ZSH = asWritten`#compdef vconsole
# zsh completion for vconsole: source it after compinit, or put it in $fpath as _vconsole.
# VM names are completed literally: compadd takes them from an array and quotes each for the
# line; none is expanded or evaluated.

_vconsole() {
    local out directive line value
    local -a args lines values shown space
    # The words as the command will get them: (Q) removes quoting and expands nothing.
    args=("\${(@Q)words[2,CURRENT-1]}" "\${(Q)PREFIX}")
    out=$(vconsole complete -- "\${args[@]}" 2>/dev/null)
    lines=("\${(@f)out}")
    [[ \${lines[-1]} == :<-> ]] || return 1
    directive=\${lines[-1]#:}
    (( directive & 1 )) && return 1
    (( directive & 2 )) && space=(-S '')
    for line in "\${(@)lines[1,-2]}"; do
        value=\${line%%$'\t'*}
        [[ -n $value ]] || continue
        values+=("$value")
        if [[ $line == *$'\t'?* ]]; then shown+=("$value  -- \${line#*$'\t'}"); else shown+=("$value"); fi
    done
    if (( \${#values} )); then
        compadd "\${space[@]}" -l -d shown -a values
    elif (( ! (directive & 4) )); then
        _files
    fi
}

if [[ \${funcstack[1]} == _vconsole ]]; then
    # Autoloaded from $fpath: this call is the first completion.
    _vconsole "$@"
else
    compdef _vconsole vconsole
fi
`;

/** fish: the candidates are the lines of a command substitution, which fish takes as they are and escapes for the line. */
const FISH = asWritten`# fish completion for vconsole
# VM names are completed literally: fish takes each candidate line as it is and escapes it for
# the line; none is expanded or evaluated.

function __vconsole_candidates
    # The words as the command will get them: -o and string unescape remove quoting, expand nothing.
    set -l args (commandline -opc)[2..-1]
    set -l typed (commandline -ct)
    set -l word ''
    if test -n "$typed"
        set word (string unescape -- $typed); or set word $typed
    end
    set -l lines (vconsole complete -- $args "$word" 2>/dev/null)
    string match -qr '^:[0-9]+$' -- $lines[-1]; or return
    set -l directive (string sub -s 2 -- $lines[-1])
    test (math "bitand($directive, 1)") -eq 0; or return
    set -e lines[-1]
    # --flag=VALUE: the candidates are values, and fish completes the whole token.
    set -l flag (string match -r -- '^-[^=]*=' $word)
    for line in $lines
        printf '%s%s\n' "$flag" $line
    end
end

complete -c vconsole -e
complete -c vconsole -f -a '(__vconsole_candidates)'
`;

/**
 * PowerShell: no Invoke-Expression (the typed words go to vconsole as arguments), and each
 * candidate is inserted as a single-quoted string unless it is a plain word, every kind of single
 * quote in it doubled, so nothing in it is expanded.
 */
const POWERSHELL = asWritten`# PowerShell completion for vconsole
# VM names are completed literally: each candidate is inserted single-quoted unless it is a plain
# word; none is expanded or evaluated.

Register-ArgumentCompleter -Native -CommandName 'vconsole' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @()
    foreach ($element in $commandAst.CommandElements | Select-Object -Skip 1) {
        if ($element.Extent.EndOffset -gt $cursorPosition) { break }
        if ($element.Extent.EndOffset -eq $cursorPosition -and $wordToComplete) { break }
        if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst]) {
            $words += $element.Value
        } else {
            $words += $element.Extent.Text
        }
    }
    $typed = $wordToComplete
    if ($typed -match "^['\u2018\u2019\u201a\u201b]") { $typed = $typed.Substring(1) -replace "['\u2018\u2019\u201a\u201b]{2}", "'" }
    $words += $typed
    $lines = @(& vconsole complete -- @words 2>$null)
    if ($lines.Count -eq 0 -or $lines[-1] -notmatch '^:(\d+)$') { return }
    if (([int]$Matches[1] -band 1) -ne 0) { return }
    if ($lines.Count -lt 2) { return }
    foreach ($line in $lines[0..($lines.Count - 2)]) {
        $value, $description = $line -split "\t", 2
        if (-not $value -or -not $value.StartsWith($typed, [System.StringComparison]::Ordinal)) { continue }
        $text = $value
        if ($value -notmatch '^[\w-][\w:./+=-]*$') {
            $text = "'" + ($value -replace "['\u2018\u2019\u201a\u201b]", '$0$0') + "'"
        }
        if (-not $description) { $description = $value }
        [System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $description)
    }
}
`;

const SCRIPTS: Record<string, string> = { bash: BASH, zsh: ZSH, fish: FISH, powershell: POWERSHELL };

/** The completion script for `shell` (one of SHELLS). */
export function completionScript(shell: string): string {
  const script = SCRIPTS[shell];
  if (script === undefined) throw new Error('no completion script for ' + shell);
  return script;
}

/** The shells there is a script for. */
export const COMPLETION_SHELLS = Object.keys(SCRIPTS);
