/**
 * A small hadolint-style checker for infra/Dockerfile (hadolint itself is a Haskell binary; Docker cannot run
 * here). Parses instructions (line continuations, comments, parser directives) into stages and reports each
 * broken rule with its line:
 *   multi-stage        at least two FROM stages, every one named (AS …)
 *   pinned-base        every external base image has a version tag with a digit or an @sha256 digest, never `latest`
 *   no-add-url         no ADD from a URL or git remote (COPY, or RUN with a checked download, instead)
 *   npm-ci             `npm ci`, never `npm install`; the stage whose node_modules the final stage copies runs
 *                      `npm ci --omit=dev`
 *   non-root           the final stage switches to a USER that is not root / 0 before its CMD
 *   healthcheck        the final stage has a HEALTHCHECK (not NONE)
 *   exec-form          CMD and ENTRYPOINT in JSON (exec) form, so SIGTERM reaches node, not a shell
 *   compiled-entry     the final CMD runs `node` on a .js/.mjs file: no tsx, ts-node or --import of a loader
 */

export interface Instruction {
  line: number;
  keyword: string;
  args: string;
}

export interface Stage {
  name: string | undefined;
  image: string;
  line: number;
  instructions: Instruction[];
}

export interface Violation {
  rule: string;
  line: number;
  message: string;
}

export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split("\n");
  let pending: { line: number; text: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    if (!pending && (trimmed === "" || trimmed.startsWith("#"))) continue;
    if (pending && trimmed.startsWith("#")) continue; // comment lines inside a continued instruction
    const continued = trimmed.endsWith("\\");
    const piece = continued ? trimmed.slice(0, -1) : trimmed;
    pending = pending ? { line: pending.line, text: `${pending.text} ${piece}` } : { line: i + 1, text: piece };
    if (continued) continue;
    const match = /^(\S+)\s*(.*)$/s.exec(pending.text.trim());
    if (match) out.push({ line: pending.line, keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
    pending = undefined;
  }
  return out;
}

/** Global ARG defaults (before the first FROM), used to resolve `FROM ${NODE_IMAGE}`. */
function globalArgs(instructions: Instruction[]): Map<string, string> {
  const args = new Map<string, string>();
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") break;
    if (instruction.keyword !== "ARG") continue;
    const [name, value] = instruction.args.split("=", 2);
    if (name && value !== undefined) args.set(name.trim(), value.trim().replace(/^"(.*)"$/, "$1"));
  }
  return args;
}

export function splitStages(instructions: Instruction[]): Stage[] {
  const args = globalArgs(instructions);
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const words = instruction.args.split(/\s+/).filter((w) => !w.startsWith("--platform"));
      const image = words[0]!.replace(/\$\{?(\w+)\}?/g, (_, name: string) => args.get(name) ?? `\${${name}}`);
      const as = words.findIndex((w) => w.toUpperCase() === "AS");
      stages.push({ name: as >= 0 ? words[as + 1] : undefined, image, line: instruction.line, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

function isExecForm(args: string): boolean {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((x) => typeof x === "string");
  } catch {
    return false;
  }
}

/** `--from=<stage>` of a COPY, when it copies node_modules. */
function nodeModulesSource(instruction: Instruction): string | undefined {
  if (instruction.keyword !== "COPY" || !/node_modules/.test(instruction.args)) return undefined;
  return /--from=(\S+)/.exec(instruction.args)?.[1];
}

export function checkDockerfile(text: string): Violation[] {
  const instructions = parseDockerfile(text);
  const stages = splitStages(instructions);
  const violations: Violation[] = [];
  const report = (rule: string, line: number, message: string) => violations.push({ rule, line, message });
  const stageNames = new Set(stages.map((s) => s.name).filter((n): n is string => n !== undefined));

  if (stages.length < 2) report("multi-stage", stages[0]?.line ?? 1, "build and run time must be separate stages");
  for (const stage of stages) {
    if (!stage.name) report("multi-stage", stage.line, `stage FROM ${stage.image} has no name (FROM … AS <name>)`);
    if (stageNames.has(stage.image)) continue;
    const digest = /@sha256:[0-9a-f]{64}$/.test(stage.image);
    const tag = /:([^/:@]+)$/.exec(stage.image)?.[1];
    if (!digest && (!tag || tag === "latest" || !/\d/.test(tag))) {
      report("pinned-base", stage.line, `base image ${stage.image} is not pinned to a version tag or digest`);
    }
  }
  for (const instruction of instructions) {
    if (instruction.keyword === "ADD" && /(^|\s)(https?:\/\/|git@|git:\/\/)/.test(instruction.args)) {
      report("no-add-url", instruction.line, "ADD from a URL: download in a RUN step with a checksum instead");
    }
    if (instruction.keyword === "RUN" && /\bnpm\s+(install|i)\b/.test(instruction.args)) {
      report("npm-ci", instruction.line, "npm install: use npm ci (the lockfile, exactly)");
    }
    if ((instruction.keyword === "CMD" || instruction.keyword === "ENTRYPOINT") && !isExecForm(instruction.args)) {
      report("exec-form", instruction.line, `${instruction.keyword} in shell form: signals go to /bin/sh, not node`);
    }
  }

  const final = stages.at(-1);
  if (!final) return violations;
  const finalLine = final.line;
  const copiesFrom = final.instructions.map(nodeModulesSource).find((s) => s !== undefined);
  const depsStage = stages.find((s) => s.name === copiesFrom);
  if (!depsStage) {
    report("npm-ci", finalLine, "the final stage copies node_modules from no named stage");
  } else if (!depsStage.instructions.some((i) => i.keyword === "RUN" && /\bnpm\s+ci\b[^&;|]*--omit=dev\b/.test(i.args))) {
    report("npm-ci", depsStage.line, `stage ${depsStage.name} (the final stage's node_modules) does not run npm ci --omit=dev`);
  }

  const cmdIndex = final.instructions.findLastIndex((i) => i.keyword === "CMD");
  const users = final.instructions.filter((i, index) => i.keyword === "USER" && (cmdIndex < 0 || index < cmdIndex));
  const user = users.at(-1)?.args.split(":")[0]?.trim();
  if (!user || user === "root" || user === "0") report("non-root", users.at(-1)?.line ?? finalLine, "the final stage runs as root: add USER <unprivileged user> before CMD");

  const healthcheck = final.instructions.findLast((i) => i.keyword === "HEALTHCHECK");
  if (!healthcheck || /^NONE$/i.test(healthcheck.args)) report("healthcheck", healthcheck?.line ?? finalLine, "the final stage has no HEALTHCHECK");

  const cmd = cmdIndex >= 0 ? final.instructions[cmdIndex]! : undefined;
  if (!cmd) {
    report("compiled-entry", finalLine, "the final stage has no CMD");
  } else if (isExecForm(cmd.args)) {
    const argv = JSON.parse(cmd.args) as string[];
    const script = argv[1];
    if (argv[0] !== "node" || !script || !/\.(m?js)$/.test(script) || argv.some((a) => /tsx|ts-node|--import|--loader|\.ts$/.test(a))) {
      report("compiled-entry", cmd.line, `CMD ${cmd.args} does not run compiled JavaScript with plain node`);
    }
  }
  return violations;
}

/** The final stage's CMD as argv (exec form), or undefined. */
export function finalCommand(text: string): string[] | undefined {
  const final = splitStages(parseDockerfile(text)).at(-1);
  const cmd = final?.instructions.findLast((i) => i.keyword === "CMD");
  return cmd && isExecForm(cmd.args) ? (JSON.parse(cmd.args) as string[]) : undefined;
}

/** Every RUN of every stage, in order (to check what the build compiles). */
export function runSteps(text: string): string[] {
  return parseDockerfile(text)
    .filter((i) => i.keyword === "RUN")
    .map((i) => i.args);
}

/** The path the HEALTHCHECK's command fetches, when it names one. */
export function healthcheckPath(text: string): string | undefined {
  const final = splitStages(parseDockerfile(text)).at(-1);
  const healthcheck = final?.instructions.findLast((i) => i.keyword === "HEALTHCHECK");
  return healthcheck ? /(\/[a-z][\w/-]*)['"]/.exec(healthcheck.args)?.[1] : undefined;
}
