// Package shellrun builds the line that run_command types into a shell,
// reads the markers that line makes the shell print, and reads a shell's
// cursor row: its prompt, input typed and not run, or a continuation
// prompt. It is pure: no tmux, no I/O.
//
// The command is typed as one line of printable ASCII whatever it holds
// (newlines, quotes, tabs, non-ASCII bytes become printf escapes), and run
// by eval in the shell itself:
//
//	printf '<erase><command>\n<start>'; case ${BASH_VERSION-}${ZSH_VERSION-} in
//	?*) eval $'<command>';; *) command eval "$(printf '<command>')";; esac; printf '<end>' "$?"
//
// How and why:
//
//   - eval runs it in the shell (cd, export, functions persist), and parses
//     it only when it runs: an unterminated quote or a missing "done" is a
//     syntax error with a status, never a continuation prompt that would
//     swallow the next call. A multi-line command (a loop, a here-document)
//     is still one typed line, so a leading space keeps all of it out of
//     the history where the shell ignores lines starting with a space.
//   - The shell is told apart when the line runs, not before: the program
//     tmux names for a pane just made may still be the sh -c that starts
//     the real shell (past longCommand bytes the name is trusted). bash
//     and zsh eval $'...'. Other POSIX shells (dash) get "command eval":
//     a syntax error in eval, a special builtin, would drop the rest of
//     the line there, end marker included, and command takes that away
//     (zsh's command runs only external programs, so it cannot be used
//     everywhere). A plain command is single-quoted there; one with
//     newlines or other bytes goes through printf, one fork.
//   - The start and end markers are OSC sequences with a number no
//     terminal and no tmux from 3.2 to 3.7 knows: tmux drops them from the
//     screen (a person and capture-pane never see them) but %output carries
//     every byte the pane printed, so the stream holds them. The echo of
//     the typed line shows "\033" as four characters, never the escape
//     byte, so it cannot forge a marker; the tag is unique per call.
//   - <erase> moves the cursor back to where the echo of the typed line
//     began and clears to the end of the screen, and the command is printed
//     there instead, so the pane reads as if a person had typed it: prompt,
//     command, output, prompt. Readline, zle and the tty all wrap an
//     ASCII line at the pane's width, so the rows the echo took are known
//     before typing; where they are not (the echo would not fit on the
//     screen, the cursor is on column 0 as before a prompt is drawn), the
//     line is typed without <erase> and the echo stays.
package shellrun
