import { Matched } from "../../grammar/matched.js";
import type { ProgramRule } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word, split_option } from "../../words.js";
import { plain, rest_of } from "./common.js";

const MANUAL = "gh(1), GitHub CLI 2.45";

/** Flags whose value is a file gh reads and sends (`--body-file`, `--input`, `-F` of the commands that write text). */
const READ_FLAGS = new Set(["--body-file", "--notes-file", "--input", "--env-file", "--add"]);
/** Flags whose value is a file or folder gh writes downloads to. */
const WRITE_FLAGS = new Set(["--dir", "-D", "--output", "-O"]);
/** gh flags that take a value, as far as the positional words are concerned (an unknown one is taken as a flag). */
const VALUED = new Set([
  "-R",
  "--repo",
  "--hostname",
  "-t",
  "--title",
  "-b",
  "--body",
  "-d",
  "--desc",
  "--description",
  "-f",
  "--filename",
  "--raw-field",
  "-F",
  "--field",
  "-X",
  "--method",
  "-H",
  "--header",
  "-q",
  "--jq",
  "--template",
  "-n",
  "--notes",
  "--target",
  "-L",
  "--limit",
  "-s",
  "--state",
  "-l",
  "--label",
  "-a",
  "--assignee",
  "-B",
  "--base",
  "--head",
  "-u",
  "--user",
  "--json",
  ...READ_FLAGS,
  ...WRITE_FLAGS,
]);
/** Commands whose operands after the first are files gh uploads (`gh release upload TAG FILE…`). */
const UPLOADS: Readonly<Record<string, number>> = { "gist create": 0, "release create": 1, "release upload": 1, "ssh-key add": 0, "gpg-key add": 0 };
/** Commands that run code gh does not ship: extensions, aliases (`!` runs a shell), the programs `config set` names. */
const RUNS_CODE: Readonly<Record<string, string>> = {
  extension: "installs or runs a gh extension, code of its own",
  ext: "installs or runs a gh extension, code of its own",
  alias: "defines or runs an alias, which may be a shell command (!)",
  config: "sets gh configuration, which names the editor, pager and browser it runs",
};
/** gh's own commands; any other name is an extension or an alias, which may run anything. */
const COMMANDS = new Set(
  [
    "api auth browse cache codespace co completion config extension ext gist gpg-key issue label org pr project release repo ruleset run search secret",
    "ssh-key status variable workflow attestation cs",
  ]
    .join(" ")
    .split(" "),
);

/** Whether a flag's value is a file gh sends: `-F` is a body file but in `gh api`, `-f` the env file of `secret`/`variable set`, `-a` a gist's file. */
function reads_file(flag: string, command: string | undefined): boolean {
  if (READ_FLAGS.has(flag)) return true;
  if (flag === "-F") return command !== "api";
  if (flag === "-f") return command === "secret" || command === "variable";
  return flag === "-a" && command === "gist";
}

/**
 * gh(1), GitHub CLI 2.45: `gh <command> <subcommand> [flags]`. Every command talks to GitHub (network, asks);
 * what gh reads and uploads — `--body-file`, `-F` (a body file, or `gh api -F key=@file`), `--input`, the files of
 * `gist create` and `release upload` — and what it downloads to are judged as paths, `gh auth token` (and
 * `auth status --show-token`) print the token and are denied. `--version`, `version` and `help` print only.
 */
function gh_match(args: readonly ShellWord[]): Matched {
  const matched = new Matched("gh", MANUAL);
  const positional: ShellWord[] = [];
  const flags: { name: string; value: ShellWord | undefined }[] = [];
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (!word.literal || !word.value.startsWith("-") || word.value === "-") {
      positional.push(word);
      continue;
    }
    const { option, attached } = word.value.startsWith("--")
      ? split_option(word.value)
      : { option: word.value.slice(0, 2), attached: word.value.length > 2 ? literal_word(word.value.slice(2)) : undefined };
    const value = attached ?? (VALUED.has(option) ? args[++index] : undefined);
    flags.push({ name: option, value });
  }
  const [command, sub] = positional.map((word) => word.value);
  const path = `${command ?? ""} ${sub ?? ""}`;
  const informational =
    positional.length === 0 ||
    command === "version" ||
    command === "help" ||
    flags.some(({ name }) => name === "--version" || name === "--help" || (name === "-h" && command !== "auth"));
  if (!informational) matched.categories.add("network");
  else matched.categories.add("read_only");
  if (command !== undefined && !COMMANDS.has(command) && !informational)
    matched.ask(`gh ${command} is not a gh command: it may be an extension or an alias, which run anything`);
  if (command !== undefined && command in RUNS_CODE && !informational) matched.ask(`gh ${command} ${RUNS_CODE[command]}`);
  if (path === "auth token" || (path === "auth status" && flags.some(({ name }) => name === "-t" || name === "--show-token")))
    matched.deny(`gh ${path} prints the GitHub token`, "credential_sensitive");
  for (const { name, value } of flags) {
    if (value === undefined) continue;
    if (reads_file(name, command)) matched.read(value);
    else if (WRITE_FLAGS.has(name)) matched.write(value);
    else if ((name === "-F" || name === "--field") && plain(value).includes("=@")) matched.read(rest_of(value, plain(value).indexOf("=@") + 2));
  }
  const uploads = UPLOADS[path.trim()];
  // `gh release upload TAG FILE#label`: the label is text
  if (uploads !== undefined)
    for (const file of positional.slice(2 + uploads)) matched.read(file.literal ? literal_word(file.value.replace(/#.*$/s, "")) : file);
  if ((path === "repo clone" || path === "gist clone") && positional[3] !== undefined) matched.write(positional[3]);
  return matched;
}

export const GH_RULES: readonly ProgramRule[] = [{ names: ["gh"], match: gh_match }];
