/** What the `state_graph` runtime reaches through `ryeos/sdk/v1` (`graphs`): the graph walker. */
import { runGraphTool } from "./walker.ts";

export const graphs = { runGraphTool };
