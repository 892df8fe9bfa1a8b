#!/usr/bin/env python3
"""Runs one Python tool: `python3 python_function.py <tool_path> <project_path>`, parameters as JSON on stdin.

Calls the tool's `execute(params, project_path)` (a coroutine is run with asyncio.run) and prints the result as one
JSON document on stdout (None gives {}). Anything the tool prints goes to stderr so that stdout stays parseable.
On an exception: {"success": false, "error": {"message", "type"}} and exit code 1.
"""
import asyncio
import importlib.util
import inspect
import json
import os
import sys
import traceback

RESULT_OUT = sys.stdout


def finish(text, exit_code):
    """Prints the one JSON document and exits without waiting for threads the tool left running."""
    RESULT_OUT.write(text + "\n")
    RESULT_OUT.flush()
    sys.stderr.flush()
    os._exit(exit_code)


def read_params():
    text = sys.stdin.read().strip()
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        raise ValueError("The parameters on stdin are not valid JSON") from None


def load_module(tool_path):
    tool_dir = os.path.dirname(tool_path)
    if tool_dir not in sys.path:
        sys.path.insert(0, tool_dir)
    name = "rye_tool_" + os.path.splitext(os.path.basename(tool_path))[0].replace("-", "_").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, tool_path)
    if spec is None or spec.loader is None:
        raise ImportError("Cannot load a Python module from " + tool_path)
    module = importlib.util.module_from_spec(spec)
    # Registered before running so that dataclasses, pickling and relative lookups see the module.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run(argv):
    if len(argv) < 3:
        raise ValueError("Usage: python_function.py <tool_path> <project_path> (parameters as JSON on stdin)")
    tool_path = os.path.abspath(argv[1])
    project_path = argv[2]
    params = read_params()
    module = load_module(tool_path)
    execute = getattr(module, "execute", None)
    if not callable(execute):
        raise AttributeError("Tool " + tool_path + " has no execute(params, project_path) function")
    result = execute(params, project_path)
    if inspect.iscoroutine(result):
        result = asyncio.run(result)
    return {} if result is None else result


def main():
    sys.stdout = sys.stderr
    try:
        text = json.dumps(run(sys.argv))
    except (Exception, SystemExit) as error:  # SystemExit from a tool must still produce JSON
        traceback.print_exc(file=sys.stderr)
        message = "The tool called sys.exit(%r)" % (error.code,) if isinstance(error, SystemExit) else str(error)
        finish(json.dumps({"success": False, "error": {"message": message, "type": type(error).__name__}}), 1)
    else:
        finish(text, 0)


if __name__ == "__main__":
    main()
