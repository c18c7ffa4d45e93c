// stage4's skills: what the golden transcripts cannot show (the tool list the model saw, the
// warnings the user saw), and the frontmatter forms real SKILL.md files use.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ScriptedModel } from "../shared/model.ts";
import { checkCall, runTool, type Tool } from "../shared/tools.ts";
import { createWorkspace } from "../shared/workspace.ts";
import { parseSkill, stage } from "../stages/stage4.ts";
import { runCase } from "./golden.ts";

const skillDescription = (run: Awaited<ReturnType<typeof runCase>>, i = 0) =>
  run.requests[i].specs.find((spec) => spec.function.name === "Skill")!.function.description;

describe("stage4 skills", () => {
  test("at start the model sees each skill's name and description, and no body", async () => {
    const run = await runCase(stage, "skills-are-listed-at-start-without-their-bodies");
    const listing = skillDescription(run);
    expect(listing).toContain("- deploy-notes: How this shop is deployed. Use before changing anything about deployment.");
    expect(listing).toContain("- release: Cut a release of the shop: bump the version, write the changelog, and tag it.");
    expect(listing).toContain("- code-review: Review a change or a file for bugs, risks and readability");
    expect(listing).toContain("- writing-tests: ");
    expect(listing).toContain("- commit-messages: ");
    expect(listing).not.toContain("never deploy on a Friday"); // the body of deploy-notes
    expect(listing).not.toContain("Code review\n");
    expect(run.messages[0].content).not.toContain("deploy-notes");
  });

  test("loading a skill never edits the system prompt or the tools: every request starts the same", async () => {
    const run = await runCase(stage, "loading-a-skill-returns-its-body");
    expect(run.requests).toHaveLength(3);
    for (const request of run.requests) {
      expect(request.messages[0]).toEqual(run.requests[0].messages[0]);
      expect(request.specs).toEqual(run.requests[0].specs);
    }
    expect(run.messages[4].content).toMatch(/^<skill-loaded name="code-review">\n# Code review\n[\s\S]*- <kit-skills>\/code-review\/references\/checklist\.md\n<\/skill-loaded>$/);
  });

  test("a broken skill is skipped with one warning naming its file; the others load", async () => {
    const run = await runCase(stage, "a-broken-skill-is-skipped-and-the-others-load");
    const warnings = run.events.filter((e) => e.type === "warning").map((e) => (e as { text: string }).text);
    expect(warnings).toEqual([
      expect.stringMatching(/^skipped the skill skills\/bad-yaml\/SKILL\.md: it has frontmatter that is not valid YAML \(.+\)$/),
      "skipped the skill skills/no-description/SKILL.md: it has no description in its frontmatter",
      "skipped the skill skills/no-frontmatter/SKILL.md: it has no YAML frontmatter (a block between --- lines at the top)",
    ]);
    expect(skillDescription(run)).toContain("- good-one: A skill that loads fine next to broken ones.");
  });

  test("a kit skill's resource file can be read with read_file, wherever the kit runs from", async () => {
    const workspace = createWorkspace(mkdtempSync(join(tmpdir(), "skills-")));
    const conversation = stage.start({ workspace, skillFolders: [], model: new ScriptedModel([]), approve: async () => ({ allow: true }), onEvent: () => {} });
    const use = async (name: string, args: object) => {
      const checked = checkCall({ id: "1", type: "function", function: { name, arguments: JSON.stringify(args) } }, conversation.tools as Tool[]);
      if (!checked.ok) throw new Error(checked.error);
      return runTool(checked.tool, checked.args, { signal: new AbortController().signal });
    };
    const loaded = await use("Skill", { skill: "writing-tests" });
    const path = /^- (\/.*references\/test-patterns\.md)$/m.exec(loaded)![1];
    const read = await use("read_file", { path });
    const expected = readFileSync(join(import.meta.dirname, "..", "skills", "writing-tests", "references", "test-patterns.md"), "utf8");
    expect(read).toContain(`     1\t${expected.split("\n")[0]}`);
    expect(await use("write_file", { path, content: "overwritten" })).toContain("outside the workspace"); // reading only
  });
});

describe("SKILL.md frontmatter", () => {
  const skill = (frontmatter: string, body = "Body.") => parseSkill(`---\n${frontmatter}\n---\n${body}\n`);

  test.each([
    ["plain", "name: a\ndescription: Does a.", "Does a."],
    ["double-quoted", 'name: "a"\ndescription: "Does a: quoted."', "Does a: quoted."],
    ["single-quoted", "name: 'a'\ndescription: 'It''s a.'", "It's a."],
    ["folded", "name: a\ndescription: >\n  Does a,\n  over two lines.", "Does a, over two lines."],
    ["literal", "name: a\ndescription: |\n  Line one.\n  Line two.", "Line one. Line two."],
    ["a colon in a plain value, as real files have", "name: a\ndescription: Use when testing. Triggers: \"run tests\", \"add a test\".", 'Use when testing. Triggers: "run tests", "add a test".'],
  ])("%s description", (_, frontmatter, description) => {
    expect(skill(frontmatter)).toEqual({ skill: expect.objectContaining({ name: "a", description, body: "Body." }) });
  });

  test("other fields are kept: license, allowed-tools, metadata", () => {
    const parsed = skill("name: a\ndescription: d\nlicense: Complete terms in LICENSE.txt\nallowed-tools: Read, Grep\nmetadata:\n  version: 1.2\n  tags: [x, y]");
    expect(parsed).toEqual({ skill: expect.objectContaining({ fields: { license: "Complete terms in LICENSE.txt", "allowed-tools": "Read, Grep", metadata: { version: 1.2, tags: ["x", "y"] } } }) });
  });

  test("Windows line endings and a byte order mark", () => {
    expect(parseSkill("\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nBody.\r\n")).toEqual({ skill: expect.objectContaining({ name: "a", description: "d", body: "Body." }) });
  });

  test.each([
    ["no frontmatter", "# Title\n", "has no YAML frontmatter"],
    ["unclosed frontmatter", "---\nname: a\ndescription: d\n", "has no YAML frontmatter"],
    ["bad YAML", "---\nname: a\ndescription: [oops\n---\n", "not valid YAML"],
    ["a list, not a mapping", "---\n- a\n- b\n---\n", "not a YAML mapping"],
    ["no name", "---\ndescription: d\n---\n", "has no name"],
    ["an empty description", "---\nname: a\ndescription: ''\n---\n", "has no description"],
  ])("%s is refused", (_, text, problem) => {
    expect(parseSkill(text)).toEqual({ problem: expect.stringContaining(problem) });
  });
});
