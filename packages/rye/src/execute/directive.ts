/** Executing a directive: the input checks and interpolation live in @rye/core (the registry's MCP prompts use them too). */
export { DIRECTIVE_INSTRUCTIONS, interpolateDirective, interpolateInputs, resolveDirectiveInputs } from "@rye/core";
