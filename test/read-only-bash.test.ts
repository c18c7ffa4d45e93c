// Read-only means read-only: every command a read-only subagent may run is checked against a
// strict allow-list before it runs. Each row is a command and whether it must be refused.
import { mkdtempSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readOnlyBashTool, readOnlyProblem } from "../shared/read-only-bash.ts";
import { createWorkspace } from "../shared/workspace.ts";

const allowed = [
  "ls -la",
  "cat README.md",
  "grep -rn 'TODO' src | head -20",
  'grep -n "a > b" notes.txt',
  "find . -name '*.ts' -not -path './node_modules/*'",
  "git status --short && git log --oneline -5",
  "git --no-pager diff HEAD~1 -- src",
  "wc -l src/*.ts 2>/dev/null | sort -n | tail -3",
  "cat notes.txt 2>&1",
  "sort < names.txt",
  "rg --files | wc -l",
  "echo 'cost: $5 > $4'",
  "ls; pwd\nls src",
  "uniq -c counts.txt",
];

const refused: [string, string][] = [
  ["touch new.txt", "not one of the read-only commands"],
  ["rm -rf src", "not one of the read-only commands"],
  ["mv a b", "not one of the read-only commands"],
  ["echo hi > out.txt", "redirection >out.txt could write"],
  ["echo hi >>log.txt", "redirection >>log.txt"],
  ["cat a 1>out", "redirection 1>out"],
  ["cat a &>out", "redirection &>out"],
  ["cat a >| out", "redirection >|out"],
  ["cat <> out", "redirection <>out"],
  ["ls | tee out.txt", '"tee" is not one of'],
  ["sed -i s/a/b/ file", '"sed" is not one of'],
  ["echo $(rm -rf /)", "expansions"],
  ["echo `rm x`", "expansions"],
  ['echo "$(touch x)"', "expansions"],
  ["echo ${HOME}", "expansions"],
  ["(cd src && rm x)", "subshells"],
  ["sleep 100 &", "background"],
  ["ls & rm x", "background"],
  ["find . -delete", "-delete runs commands or writes files"],
  ["find . -exec rm {} ;", "subshells"],
  ["find . -name x -exec rm \\{\\} \\;", "-exec runs commands"],
  ["sort -o sorted.txt names.txt", "-o writes its output"],
  ["sort --output=sorted.txt names.txt", "--output=sorted.txt writes"],
  ["uniq in.txt out.txt", "writes the second one"],
  ["git checkout main", "git checkout is not a read-only git command"],
  ["git branch -D main", "git branch is not a read-only git command"],
  ["git diff --output=patch.txt", "--output=patch.txt"],
  ["GIT_EXTERNAL_DIFF=evil git diff", "setting variables"],
  ["/bin/rm x", "not one of"],
  ["./ls", "not one of"],
  ["rg --pre ./evil pattern", "--pre runs a preprocessor"],
  ["cat 'unclosed", "unclosed quote"],
  ["bash -c 'ls'", '"bash" is not one of'],
  ["python3 -c 'open(\"x\",\"w\")'", '"python3" is not one of'],
  ["xargs rm < list.txt", '"xargs" is not one of'],
  ["find . *", "unquoted wildcard could expand to an option of find"],
  ["sort *.txt", "unquoted wildcard could expand to an option of sort"],
];

describe("read-only command check", () => {
  test.each(allowed)("allows %j", (command) => expect(readOnlyProblem(command)).toBeUndefined());
  test.each(refused)("refuses %j (%s)", (command, reason) => expect(readOnlyProblem(command)).toContain(reason));
});

describe("the read-only bash tool", () => {
  test("refused commands never run: the workspace is unchanged", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "ro-")));
    writeFileSync(join(dir, "keep.txt"), "keep\n");
    const tool = readOnlyBashTool(createWorkspace(dir));
    const signal = new AbortController().signal;
    for (const command of ["touch made.txt", "rm keep.txt", "mv keep.txt moved.txt", "echo x > made.txt", "cat keep.txt | tee made.txt"]) {
      expect(await tool.run({ command }, { signal })).toMatch(/^Error: refused, this bash is read-only: .* Nothing was run\.$/);
    }
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
    expect(await tool.run({ command: "cat keep.txt" }, { signal })).toBe("keep\n[exit code 0]");
  });
});
