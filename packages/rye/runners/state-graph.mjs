// The entry of the `state_graph` runtime (rye/core/runtimes/state_graph, docs/state-graphs.md). node-runner.mjs
// runs it as `node node-runner.mjs state-graph.mjs <graph file>`: the graph tool's parameters arrive as `params`,
// the graph file (already verified by the executor chain) as the next argument, and the walker of the rye client
// (`ryeos/sdk/v1` → `graphs`) reads and verifies it again, then runs or resumes it in this process.
export async function main(params, context) {
  const graphPath = process.argv[3];
  if (!graphPath) throw new Error("Usage: node-runner.mjs state-graph.mjs <graph file> (parameters as JSON on stdin)");
  if (!context.loadSdk) throw new Error("state-graph.mjs must run through rye's node runner (it provides the SDK)");
  const sdk = await context.loadSdk();
  return sdk.graphs.runGraphTool({ graphPath, params, projectPath: context.projectPath ?? process.cwd(), env: process.env });
}
