/// Shell completions for bash, zsh and fish, made from the commands' own declarations (`Command`,
/// `FlagSpec`): a flag added to a command completes without another line anywhere.
enum ShellCompletions {
    /// What a flag's value completes to: a path, one of some words, or nothing to suggest.
    enum ValueKind: Equatable {
        case none
        case path
        case words([String])
    }

    static func valueKind(of spec: FlagSpec) -> ValueKind {
        if let choices = spec.choices { return .words(choices) }
        switch spec.valueName {
        case "S", "FILE", "FILE.html", "D": return .path
        default: return .none
        }
    }

    static func script(for shell: String, commands: [Command]) -> String? {
        switch shell {
        case "bash": return bash(commands)
        case "zsh": return zsh(commands)
        case "fish": return fish(commands)
        default: return nil
        }
    }

    // MARK: bash

    static func bash(_ commands: [Command]) -> String {
        var text = """
            # bash completion for aggctl (made by `aggctl completions bash`)
            _aggctl() {
                local cur prev command flags
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=( $(compgen -W "\(commands.map(\.name).joined(separator: " ")) --help --version" -- "$cur") )
                    return
                fi
                command="${COMP_WORDS[1]}"
                case "$command:$prev" in

            """
        // A flag's values by command: one name (--format) takes other words in another command.
        for command in commands {
            for spec in command.flags {
                switch valueKind(of: spec) {
                case .path:
                    text += "        \(command.name):--\(spec.name))\n"
                    text += "            COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;\n"
                case .words(let list):
                    text += "        \(command.name):--\(spec.name))\n"
                    text +=
                        "            COMPREPLY=( $(compgen -W \"\(list.joined(separator: " "))\" -- \"$cur\") ); return ;;\n"
                case .none:
                    // A value to type (an id, a date, a number): nothing to offer, least of all flags.
                    guard spec.valueName != nil else { break }
                    text += "        \(command.name):--\(spec.name))\n"
                    text += "            COMPREPLY=(); return ;;\n"
                }
            }
        }
        text += "    esac\n"
        // A command's word (`completions bash`): its choices in its place.
        for command in commands where command.takesArgument {
            let words = (command.argumentName ?? "").split(separator: "|").joined(separator: " ")
            text += "    if [ \"$command\" = \(command.name) ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
            text += "        COMPREPLY=( $(compgen -W \"\(words) --help\" -- \"$cur\") ); return\n    fi\n"
        }
        text += "    case \"$command\" in\n"
        for command in commands {
            text +=
                "        \(command.name)) flags=\"\(command.flags.map { "--\($0.name)" }.joined(separator: " ")) --help\" ;;\n"
        }
        text += """
                    *) flags="--help" ;;
                esac
                COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
            }
            complete -F _aggctl aggctl

            """
        return text
    }

    // MARK: zsh

    /// Text inside zsh's single quotes and `_arguments`' brackets and descriptions.
    static func zshQuoted(_ text: String) -> String {
        text.replacing("'", with: "'\\''").replacing(":", with: "\\:")
            .replacing("[", with: "\\[").replacing("]", with: "\\]")
    }

    static func zsh(_ commands: [Command]) -> String {
        var text = """
            #compdef aggctl
            # zsh completion for aggctl (made by `aggctl completions zsh`)
            _aggctl() {
              local -a commands
              commands=(

            """
        for command in commands { text += "    '\(command.name):\(zshQuoted(command.summary))'\n" }
        text += """
              )
              if (( CURRENT == 2 )); then
                _describe 'command' commands
                return
              fi
              case $words[2] in

            """
        for command in commands {
            // The command's own words only: `_arguments` takes the first word for the command name, so
            // without the shift it read the subcommand as that and completed nothing after it.
            text += "    \(command.name))\n      shift words; (( CURRENT-- ))\n      _arguments \\\n"
            if command.takesArgument, let words = command.argumentName {
                text += "        '1:\(zshQuoted(words)):(\(words.split(separator: "|").joined(separator: " ")))' \\\n"
            }
            for spec in command.flags {
                var argument = "--\(spec.name)[\(zshQuoted(spec.help))]"
                if let value = spec.valueName {
                    switch valueKind(of: spec) {
                    case .path: argument += ":\(zshQuoted(value)):_files"
                    case .words(let list): argument += ":\(zshQuoted(value)):(\(list.joined(separator: " ")))"
                    case .none: argument += ":\(zshQuoted(value)):"
                    }
                }
                if spec.repeatable { argument = "*" + argument }
                text += "        '\(argument)' \\\n"
            }
            text += "        '--help[show this help]'\n      ;;\n"
        }
        text += """
              esac
            }
            if [ "$funcstack[1]" = "_aggctl" ]; then
              _aggctl "$@"
            else
              compdef _aggctl aggctl
            fi

            """
        return text
    }

    // MARK: fish

    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    static func fish(_ commands: [Command]) -> String {
        var text = "# fish completion for aggctl (made by `aggctl completions fish`)\ncomplete -c aggctl -f\n"
        for command in commands {
            text += "complete -c aggctl -n __fish_use_subcommand -a \(command.name) -d \(fishQuoted(command.summary))\n"
        }
        for command in commands where command.takesArgument {
            let words = (command.argumentName ?? "").split(separator: "|").joined(separator: " ")
            let condition = fishQuoted("__fish_seen_subcommand_from \(command.name)")
            text += "complete -c aggctl -n \(condition) -a \(fishQuoted(words))\n"
        }
        for command in commands {
            let condition = fishQuoted("__fish_seen_subcommand_from \(command.name)")
            for spec in command.flags {
                var line = "complete -c aggctl -n \(condition) -l \(spec.name)"
                switch (spec.valueName, valueKind(of: spec)) {
                case (nil, _): break
                case (_, .path): line += " -r -F"
                case (_, .words(let list)): line += " -x -a \(fishQuoted(list.joined(separator: " ")))"
                case (_, .none): line += " -x"
                }
                text += line + " -d \(fishQuoted(spec.help))\n"
            }
        }
        return text
    }
}
