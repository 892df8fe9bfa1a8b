/**
 * Reading infra/compose.yaml and infra/k8s/*.yaml for the static checks: YAML documents, Kubernetes schema
 * validation (kubernetes-models: validators generated from the Kubernetes OpenAPI schemas), and the facts the
 * cross-checks compare with the code (env names, probe paths, commands).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, parse } from "yaml";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Job } from "kubernetes-models/batch/v1/Job";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";

export type Json = Record<string, unknown>;

export interface Manifest {
  file: string;
  kind: string;
  apiVersion: string;
  name: string;
  body: Json;
}

/** The Kubernetes kinds the manifests may use, with the model that validates each. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "batch/v1/Job": Job,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/Ingress": Ingress,
};

/** Throws when `body` is not a valid object of its apiVersion/kind (or of a kind the manifests may not use). */
export function validateKubernetesObject(body: Json): void {
  const key = `${String(body.apiVersion)}/${String(body.kind)}`;
  const Model = MODELS[key];
  if (!Model) throw new Error(`${key} is not a kind these manifests may use (${Object.keys(MODELS).join(", ")})`);
  new Model(body as never).validate();
}

export function loadYamlDocuments(path: string): Json[] {
  return parseAllDocuments(readFileSync(path, "utf8")).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join("; ")}`);
    return doc.toJS() as Json;
  });
}

/** YAML with merge keys (`<<: *anchor`), as Compose reads it. */
export function loadCompose(path: string): Json {
  return parse(readFileSync(path, "utf8"), { merge: true }) as Json;
}

/** Every Kubernetes object under `dir` (kustomization.yaml is kustomize's, not the API server's). */
export function loadManifests(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .sort()
    .flatMap((file) =>
      loadYamlDocuments(join(dir, file)).map((body) => {
        const metadata = (body.metadata ?? {}) as Json;
        return { file, kind: String(body.kind), apiVersion: String(body.apiVersion), name: String(metadata.name), body };
      }),
    );
}

export interface Container {
  owner: string;
  name: string;
  image: string;
  command: string[];
  env: { name: string; value?: string; valueFrom?: Json }[];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports: { name?: string; containerPort: number }[];
  probes: Record<"livenessProbe" | "readinessProbe" | "startupProbe", { httpGet?: { path: string; port: string | number } } | undefined>;
}

/** Containers of the Deployments and Jobs. */
export function containers(manifests: Manifest[]): Container[] {
  return manifests
    .filter((m) => m.kind === "Deployment" || m.kind === "Job")
    .flatMap((m) => {
      const template = (m.body.spec as Json).template as Json;
      const podSpec = template.spec as Json;
      return (podSpec.containers as Json[]).map((c) => ({
        owner: `${m.kind}/${m.name}`,
        name: String(c.name),
        image: String(c.image),
        command: (c.command as string[] | undefined) ?? [],
        env: (c.env as Container["env"] | undefined) ?? [],
        envFrom: (c.envFrom as Container["envFrom"] | undefined) ?? [],
        ports: (c.ports as Container["ports"] | undefined) ?? [],
        probes: {
          livenessProbe: c.livenessProbe as Container["probes"]["livenessProbe"],
          readinessProbe: c.readinessProbe as Container["probes"]["readinessProbe"],
          startupProbe: c.startupProbe as Container["probes"]["startupProbe"],
        },
      }));
    });
}

/** Env names a container gets: its own `env`, and the keys of the ConfigMaps/Secrets it takes whole. */
export function containerEnvNames(container: Container, manifests: Manifest[]): string[] {
  const names = container.env.map((e) => e.name);
  for (const source of container.envFrom) {
    const ref = source.configMapRef ?? source.secretRef;
    const kind = source.configMapRef ? "ConfigMap" : "Secret";
    const object = manifests.find((m) => m.kind === kind && m.name === ref?.name);
    if (!object) throw new Error(`${container.owner}: envFrom names ${kind} ${ref?.name}, which no manifest defines`);
    names.push(...Object.keys((object.body.data ?? object.body.stringData ?? {}) as Json));
  }
  return names;
}

export function labelsMatch(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}
