/** Environment variables a graph run passes to itself (resume, force, run id); never inherited by the tools it runs. */
export const GRAPH_ENV = { resume: "RYE_GRAPH_RESUME", force: "RYE_GRAPH_FORCE", runId: "RYE_GRAPH_RUN_ID" } as const;
