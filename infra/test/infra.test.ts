/**
 * Static checks of infra/ (Docker cannot run here), plus the one part that can run: the compiled server the
 * image starts.
 *   - compose.yaml is valid against the Compose Specification schema (vendored) and has the promised topology;
 *   - every Kubernetes object validates against the Kubernetes schemas (kubernetes-models) and the objects agree
 *     with each other (selectors, Services, HPA targets, Ingress backends, referenced ConfigMaps/Secrets);
 *   - the Dockerfile passes the hadolint-style rules of dockerfile-rules.ts, and each rule does catch its fault;
 *   - haproxy accepts haproxy.cfg (`haproxy -c`);
 *   - cross-checks with the code: every env name set is one the code reads, every entry point is a compiled
 *     bundle of scripts/build-server.mjs whose imports are production dependencies, every probe path is answered
 *     by the compiled server, and the cache headers docs/deployment.md promises the CDN are those it sends.
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import draft07 from "ajv/dist/refs/json-schema-draft-07.json" with { type: "json" };
import { ensureServerBuild, SERVER_TARGETS } from "../../scripts/build-server.mjs";
import { freePort } from "../../apps/api/test/free-port.ts";
import { programPath, skipWithoutProgram } from "../../scripts/test-requirements.ts";
import { checkDockerfile, finalCommand, healthcheckPath, runSteps } from "./dockerfile-rules.ts";
import { knownEnvNames } from "./known-env.ts";
import { containerEnvNames, containers, type Json, labelsMatch, loadCompose, loadManifests, type Manifest, validateKubernetesObject } from "./manifests.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const infra = join(root, "infra");
const dockerfile = readFileSync(join(infra, "Dockerfile"), "utf8");
const compose = loadCompose(join(infra, "compose.yaml"));
const manifests = loadManifests(join(infra, "k8s"));
const services = compose.services as Record<string, Json>;


const byKind = (kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);
const composeRegistryServices = Object.entries(services).filter(([, s]) => (s.build as Json | undefined)?.dockerfile === "infra/Dockerfile");

describe("compose.yaml", () => {
  test("is valid against the Compose Specification schema", () => {
    const schema = JSON.parse(readFileSync(join(infra, "schemas/compose-spec.json"), "utf8")) as Json;
    const ajv = new Ajv({ allErrors: true, strict: false });
    // The schema names draft-07 by its https URL; ajv knows the meta-schema by its http one.
    ajv.addMetaSchema({ ...draft07, $id: String(schema.$schema) });
    const validate = ajv.compile(schema);
    assert.equal(validate(compose), true, JSON.stringify(validate.errors, null, 2));
    // The schema does catch mistakes: an unknown service key and a bad depends_on condition.
    assert.equal(validate({ services: { api: { image: "x", replica: 2 } } }), false);
    assert.equal(validate({ services: { api: { image: "x", depends_on: { db: { condition: "service_ready" } } } } }), false);
  });

  test("runs PostgreSQL, MinIO, migrations once, two API replicas, the website and haproxy", () => {
    assert.match(String(services.postgres?.image), /^postgres:\d/);
    assert.match(String(services.minio?.image), /^minio\/minio:RELEASE\./);
    assert.equal((services.api?.deploy as Json).replicas, 2);
    assert.deepEqual(services.migrate?.command, ["node", SERVER_TARGETS.migrate.outfile]);
    assert.equal(services.migrate?.restart, "no");
    for (const name of ["api", "web"]) {
      const dependsOn = services[name]?.depends_on as Record<string, { condition: string }>;
      assert.equal(dependsOn.migrate?.condition, "service_completed_successfully", `${name} starts after the migrations`);
    }
    assert.equal((services.api?.depends_on as Record<string, { condition: string }>)["minio-bucket"]?.condition, "service_completed_successfully");
    assert.match(String(services.lb?.image), /^haproxy:2\.6/);
    assert.ok((services.lb?.volumes as string[]).includes("./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"));
    const env = services.api?.environment as Record<string, string>;
    assert.equal(env.RYE_BLOB_STORE, "s3");
    assert.equal(env.RYE_S3_ENDPOINT, "http://minio:9000");
    assert.match(env.DATABASE_URL!, /@postgres:5432\//);
  });

  test("no image is unpinned, and no secret has a default value", () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.image === undefined) continue;
      const image = String(service.image);
      assert.ok(!image.endsWith(":latest") && /:[^/]*\d/.test(image), `${name}: ${image} is not pinned to a version`);
    }
    for (const [name, service] of composeRegistryServices) {
      const env = service.environment as Record<string, string>;
      for (const secret of ["RYE_REGISTRY_PRIVATE_KEY", "RYE_TOKEN_PRIVATE_KEY", "RYE_COOKIE_SECRET", "RYE_SECRETS_KEY", "RYE_S3_SECRET_ACCESS_KEY"]) {
        assert.match(env[secret]!, /^\$\{[A-Z_]+:\?/, `${name}.${secret} must be required from the environment, not defaulted`);
      }
    }
  });
});

describe("Kubernetes manifests", () => {
  test("every object validates against the Kubernetes schemas", () => {
    assert.ok(manifests.length >= 10);
    for (const m of manifests) {
      assert.doesNotThrow(() => validateKubernetesObject(m.body), `${m.file}: ${m.kind}/${m.name}`);
    }
    // The validation does catch mistakes.
    const deployment = structuredClone(byKind("Deployment")[0]!.body);
    (deployment.spec as Json).replicas = "two";
    assert.throws(() => validateKubernetesObject(deployment), /replicas must be integer/);
    const pdb = structuredClone(byKind("PodDisruptionBudget")[0]!.body);
    (pdb.spec as Json).minAvailable = { percent: 50 };
    assert.throws(() => validateKubernetesObject(pdb));
    assert.throws(() => validateKubernetesObject({ apiVersion: "extensions/v1beta1", kind: "Ingress" }), /not a kind/);
  });

  test("api and web are Deployments with a Service, an HPA and a PDB; migrations are a Job", () => {
    for (const name of ["rye-api", "rye-web"]) {
      const deployment = byKind("Deployment").find((m) => m.name === name);
      assert.ok(deployment, `Deployment ${name}`);
      const spec = deployment.body.spec as Json;
      const podLabels = ((spec.template as Json).metadata as Json).labels as Record<string, string>;
      assert.ok(labelsMatch((spec.selector as Json).matchLabels as Record<string, string>, podLabels), `${name}: selector matches its pods`);
      const service = byKind("Service").find((m) => labelsMatch((m.body.spec as Json).selector as Record<string, string>, podLabels));
      assert.ok(service, `a Service selects ${name}'s pods`);
      const hpa = byKind("HorizontalPodAutoscaler").find((m) => ((m.body.spec as Json).scaleTargetRef as Json).name === name);
      assert.ok(hpa, `an HPA scales ${name}`);
      assert.ok(((hpa.body.spec as Json).minReplicas as number) >= 2, `${name}: at least 2 replicas, so one can be disrupted`);
      const pdb = byKind("PodDisruptionBudget").find((m) => labelsMatch(((m.body.spec as Json).selector as Json).matchLabels as Record<string, string>, podLabels));
      assert.ok(pdb, `a PDB covers ${name}`);
      const pod = (spec.template as Json).spec as Json;
      assert.equal((pod.securityContext as Json).runAsNonRoot, true, `${name} runs as non-root`);
    }
    const job = byKind("Job").find((m) => m.name === "rye-migrate");
    assert.ok(job);
    assert.equal((((job.body.spec as Json).template as Json).spec as Json).restartPolicy, "Never");
  });

  test("every container probes /health (liveness) and /ready (readiness) on a port it declares", () => {
    for (const container of containers(manifests).filter((c) => c.owner.startsWith("Deployment/"))) {
      assert.equal(container.probes.livenessProbe?.httpGet?.path, "/health", container.owner);
      assert.equal(container.probes.readinessProbe?.httpGet?.path, "/ready", container.owner);
      for (const probe of Object.values(container.probes)) {
        if (!probe?.httpGet) continue;
        const port = probe.httpGet.port;
        assert.ok(container.ports.some((p) => p.name === port || p.containerPort === port), `${container.owner}: probe port ${port} is declared`);
      }
    }
  });

  test("Ingress backends and referenced ConfigMaps/Secrets exist; images are pinned", () => {
    const serviceNames = new Set(byKind("Service").map((m) => m.name));
    for (const ingress of byKind("Ingress")) {
      for (const rule of (ingress.body.spec as Json).rules as { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[]) {
        for (const path of rule.http.paths) {
          const name = path.backend.service.name;
          assert.ok(serviceNames.has(name), `Ingress backend ${name} is a Service`);
          const service = byKind("Service").find((m) => m.name === name)!;
          assert.ok(((service.body.spec as Json).ports as { name: string }[]).some((p) => p.name === path.backend.service.port.name));
        }
      }
    }
    for (const container of containers(manifests)) {
      assert.match(container.image, /^[\w./-]+:[\w.-]*\d[\w.-]*$/, `${container.owner}: ${container.image} is pinned`);
      assert.doesNotThrow(() => containerEnvNames(container, manifests), container.owner);
      for (const e of container.env) {
        const ref = (e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef) as { name: string; key: string } | undefined;
        if (!ref) continue;
        const kind = e.valueFrom?.secretKeyRef ? "Secret" : "ConfigMap";
        const object = manifests.find((m) => m.kind === kind && m.name === ref.name);
        assert.ok(object, `${container.owner}: ${kind} ${ref.name}`);
        assert.ok(ref.key in ((object.body.data ?? object.body.stringData) as Json), `${container.owner}: ${kind} ${ref.name} has ${ref.key}`);
      }
    }
  });
});

describe("Dockerfile", () => {
  test("passes the hadolint-style rules", () => {
    assert.deepEqual(checkDockerfile(dockerfile), []);
  });

  test("each rule catches its fault", () => {
    const good = dockerfile;
    const rulesBroken = (text: string) => [...new Set(checkDockerfile(text).map((v) => v.rule))];
    assert.deepEqual(rulesBroken(good.replace("ARG NODE_IMAGE=node:22.23.3-bookworm-slim", "ARG NODE_IMAGE=node:latest")), ["pinned-base"]);
    assert.deepEqual(rulesBroken(good.replace("ARG NODE_IMAGE=node:22.23.3-bookworm-slim", "ARG NODE_IMAGE=node")), ["pinned-base"]);
    assert.deepEqual(rulesBroken(good.replace("USER node\n", "")), ["non-root"]);
    assert.deepEqual(rulesBroken(good.replace("USER node\n", "USER root\n")), ["non-root"]);
    assert.deepEqual(rulesBroken(good.replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, "")), ["healthcheck"]);
    assert.deepEqual(rulesBroken(`${good}\nADD https://example.com/tool.tgz /opt/\n`), ["no-add-url"]);
    assert.deepEqual(rulesBroken(good.replace("npm ci --omit=dev", "npm ci")), ["npm-ci"]);
    assert.deepEqual(rulesBroken(good.replace("npm ci --no-audit --no-fund --ignore-scripts\n", "npm install\n")), ["npm-ci"]);
    assert.deepEqual(rulesBroken(good.replace('CMD ["node", "apps/web/server/dist/main.js"]', "CMD node apps/web/server/dist/main.js")), ["exec-form"]);
    assert.deepEqual(rulesBroken(good.replace('CMD ["node", "apps/web/server/dist/main.js"]', 'CMD ["node", "--import", "tsx", "apps/web/server/main.ts"]')), ["compiled-entry"]);
    const singleStage = `FROM node:22.23.3-bookworm-slim\nRUN npm ci --omit=dev\nUSER node\nHEALTHCHECK CMD ["true"]\nCMD ["node", "main.js"]\n`;
    assert.ok(rulesBroken(singleStage).includes("multi-stage"));
  });

  test("builds every bundle it runs, and runs no TypeScript", () => {
    const run = runSteps(dockerfile).join("\n");
    const built = Object.entries(SERVER_TARGETS).filter(([target]) => new RegExp(`build-server\\.mjs ${target}\\b`).test(run));
    assert.deepEqual(built.map(([t]) => t).sort(), Object.keys(SERVER_TARGETS).sort(), "the build stage compiles every server target");
    assert.match(run, /npm run build -w @rye\/web/, "the website's production build");
    // Verified by hand (npm ci --omit=dev, then both bundles started): the only compiler npm still installs is
    // TypeScript, as Prisma's peer dependency; the image deletes it.
    assert.match(run, /npm ci --omit=dev[^]*rm -rf node_modules\/typescript/, "the production install drops TypeScript (Prisma's peer)");
    const outfiles = new Set(Object.values(SERVER_TARGETS).map((t) => t.outfile));
    const entries = [
      { where: "Dockerfile CMD", argv: finalCommand(dockerfile) ?? [] },
      ...composeRegistryServices.map(([name, s]) => ({ where: `compose ${name}`, argv: s.command as string[] })),
      ...containers(manifests).map((c) => ({ where: c.owner, argv: c.command })),
    ];
    for (const { where, argv } of entries) {
      assert.equal(argv[0], "node", where);
      assert.ok(outfiles.has(argv[1]!), `${where}: ${argv[1]} is a compiled bundle (${[...outfiles].join(", ")})`);
      assert.equal(argv.length, 2, `${where}: no loader flags`);
    }
  });
});

test("haproxy accepts haproxy.cfg", { skip: skipWithoutProgram("haproxy") }, () => {
  const out = execFileSync(programPath("haproxy")!, ["-c", "-f", join(infra, "haproxy.cfg")], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.match(out, /Configuration file is valid/);
});

describe("cross-checks with the code", () => {
  test("every env name compose and Kubernetes set is one the registry reads", () => {
    const known = knownEnvNames(root);
    const set = new Map<string, string>();
    for (const [name, service] of composeRegistryServices) for (const key of Object.keys(service.environment as Json)) set.set(key, `compose ${name}`);
    for (const container of containers(manifests)) for (const key of containerEnvNames(container, manifests)) set.set(key, container.owner);
    const unknown = [...set].filter(([name]) => !known.has(name));
    assert.deepEqual(unknown, [], "names no code reads (typo or renamed setting)");
    // The check does catch a typo.
    assert.equal(known.has("RYE_REGISTRY_ULR"), false);
    assert.ok(known.has("RYE_REGISTRY_URL") && known.has("DATABASE_URL") && known.has("RYE_TOKEN_PRIVATE_KEY"));
  });

  test("the bundles import only production dependencies of the workspaces", async () => {
    const workspaces = ["apps/api", "apps/web", "packages/core", "packages/db"];
    const production = new Set(workspaces.flatMap((w) => Object.keys((JSON.parse(readFileSync(join(root, w, "package.json"), "utf8")) as { dependencies?: Json }).dependencies ?? {})));
    for (const target of Object.keys(SERVER_TARGETS) as (keyof typeof SERVER_TARGETS)[]) {
      await ensureServerBuild(target, () => {});
      const bundle = readFileSync(join(root, SERVER_TARGETS[target].outfile), "utf8");
      const specifiers = [...bundle.matchAll(/^import\s[^;]*?from\s*"([^"]+)";/gm), ...bundle.matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => m[1]!);
      const packages = new Set(specifiers.filter((s) => !s.startsWith("node:") && !s.startsWith(".")).map((s) => s.split("/").slice(0, s.startsWith("@") ? 2 : 1).join("/")));
      assert.ok(packages.size > 0 || target === "migrate", `${target}: imports found`);
      const missing = [...packages].filter((p) => !production.has(p));
      assert.deepEqual(missing, [], `${target} imports packages npm ci --omit=dev does not install`);
      assert.ok(!packages.has("tsx") && !packages.has("typescript") && !packages.has("esbuild"));
    }
  });

  test("the migrations command of the Job and of compose (compiled) migrates PostgreSQL, then finds nothing to do", { skip: skipWithoutPostgres() }, async () => {
    await ensureServerBuild("migrate", () => {});
    const scratch = await createScratchPostgresDatabase();
    try {
      const run = () =>
        execFileSync(process.execPath, ["--no-experimental-strip-types", join(root, SERVER_TARGETS.migrate.outfile)], {
          env: { ...process.env, DATABASE_URL: scratch.url },
          encoding: "utf8",
        });
      const migrations = readdirSync(join(root, "prisma/migrations"), { withFileTypes: true }).filter((e) => e.isDirectory()).length;
      assert.match(run(), new RegExp(`applied ${migrations} migration\\(s\\)`));
      assert.match(run(), /database is up to date/);
    } finally {
      await scratch.drop();
    }
  });

  describe("the compiled API server (what the image runs)", () => {
    let child: ChildProcess;
    let url: string;
    let dataDir: string;
    let stderr = "";

    before(async () => {
      await ensureServerBuild("api", () => {});
      const port = await freePort();
      dataDir = await mkdtemp(join(tmpdir(), "rye-infra-"));
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(port), RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "warn" };
      delete env.DATABASE_URL; // the embedded database: this test is about the bundle, not PostgreSQL
      // Plain node, TypeScript type stripping off: a .ts import left in the bundle fails the start.
      child = spawn(process.execPath, ["--no-experimental-strip-types", join(root, SERVER_TARGETS.api.outfile)], { env, stdio: ["ignore", "ignore", "pipe"] });
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      url = `http://127.0.0.1:${port}`;
      while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) {
        assert.equal(child.exitCode, null, `the server exited: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    });

    after(async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      await rm(dataDir, { recursive: true, force: true });
    });

    test("answers every probe path of the Dockerfile, compose, haproxy and Kubernetes", async () => {
      const paths = new Set<string>([healthcheckPath(dockerfile)!]);
      for (const c of containers(manifests)) for (const p of Object.values(c.probes)) if (p?.httpGet) paths.add(p.httpGet.path);
      for (const m of readFileSync(join(infra, "haproxy.cfg"), "utf8").matchAll(/option httpchk GET (\S+)/g)) paths.add(m[1]!);
      assert.ok(paths.has("/health") && paths.has("/ready"));
      for (const path of paths) {
        const res = await fetch(`${url}${path}`);
        await res.body?.cancel();
        assert.equal(res.status, 200, `${path} answers 200`);
      }
    });

    test("pull answers carry the cache headers docs/deployment.md tells the CDN about", async () => {
      const doc = readFileSync(join(root, "docs/deployment.md"), "utf8");
      const search = (await (await fetch(`${url}/v1/search?limit=1`)).json()) as { results: { item_type: string; item_id: string; version: string }[] };
      const item = search.results[0]!;
      const pull = `${url}/v1/pull/${item.item_type}/${item.item_id}`;
      const pinned = await fetch(`${pull}?version=${item.version}`);
      await pinned.body?.cancel();
      const latest = await fetch(pull);
      await latest.body?.cancel();
      for (const [res, what] of [[pinned, "pinned"], [latest, "latest"]] as const) {
        const cacheControl = res.headers.get("cache-control")!;
        assert.ok(doc.includes(`\`${cacheControl}\``), `${what} pull's Cache-Control "${cacheControl}" is documented`);
        assert.match(res.headers.get("etag")!, /^"[^"]+"$/);
        assert.match(res.headers.get("vary") ?? "", /authorization/i, "a CDN must key on Authorization (or bypass when it is set)");
      }
      assert.equal(pinned.headers.get("cache-control"), "public, max-age=31536000, immutable");
      const revalidated = await fetch(pull, { headers: { "if-none-match": latest.headers.get("etag")! } });
      assert.equal(revalidated.status, 304, "an ETag revalidation answers 304");
    });
  });
});
