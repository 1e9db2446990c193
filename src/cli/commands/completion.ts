// completion: a bash or zsh script that completes commands, subcommands and flags from this program's own
// command tree, resource types from the server's discovery and object names from the server.

import { Command } from 'commander';
import { CliError, type Cli } from '../cli.js';

/** every command path with its flags: `get` → `-o --output ...`, `create configmap` → ... */
function tree(root: Command): Map<string, { subcommands: string[]; flags: string[] }> {
  const out = new Map<string, { subcommands: string[]; flags: string[] }>();
  const walk = (c: Command, path: string[]) => {
    const flags = c.options.flatMap((o) => [o.short, o.long].filter((x): x is string => !!x));
    out.set(path.join(' '), { subcommands: c.commands.flatMap((s) => [s.name(), ...s.aliases()]), flags });
    for (const s of c.commands) walk(s, [...path, s.name()]);
  };
  walk(root, []);
  return out;
}

/** commands whose first argument is a resource type */
const takesTypes = ['get', 'describe', 'delete', 'edit', 'label', 'annotate', 'patch', 'scale', 'wait', 'explain', 'rollout status', 'rollout history', 'rollout undo', 'rollout restart', 'rollout pause', 'rollout resume'];

export function bashScript(root: Command): string {
  const name = root.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const entries = [...tree(root)].map(([path, { subcommands, flags }]) =>
    `    "${path}") cmds="${subcommands.join(' ')}"; flags="${[...flags, ...tree(root).get('')!.flags].join(' ')}";;`).join('\n');
  return `# bash completion for ${name}; load with: source <(${name} completion bash)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i cmds flags types=""
  # the command path: the words before the cursor that name commands
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case "$path" in
${entries}
    esac
    if [[ " $cmds " == *" $word "* ]]; then path="\${path:+$path }$word"; else types="$word"; break; fi
  done
  case "$path" in
${entries}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); return; fi
  if [[ -n "$cmds" ]]; then COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return; fi
  case " ${takesTypes.join(' | ')} " in
    *" $path "*)
      if [[ -z "$types" ]]; then
        COMPREPLY=($(compgen -W "$(${name} api-resources -o name --cached 2>/dev/null | sed 's/\\..*//')" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$(${name} get "$types" -o custom-columns=:metadata.name --no-headers 2>/dev/null)" -- "$cur"))
      fi;;
  esac
}
complete -o default -F ${fn} ${name}
`;
}

export function completionCommand(cli: Cli): Command {
  return new Command('completion')
    .description('Print a shell completion script (bash or zsh)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string, _f: unknown, command: Command) => {
      let root = command;
      while (root.parent) root = root.parent;
      if (shell === 'bash') return cli.out(bashScript(root));
      // zsh runs the bash script through its bash completion layer
      if (shell === 'zsh') return cli.out(`#compdef ${root.name()}\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(root)}`);
      throw new CliError(`unsupported shell "${shell}": use bash or zsh`);
    });
}
