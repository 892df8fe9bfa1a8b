#!/usr/bin/env python3
"""Read a file and print it as JSON."""
import json
import sys

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script"
__category__ = "demo"
__tool_description__ = "Read a file"
CONFIG_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def main() -> None:
    params = json.loads(sys.argv[sys.argv.index("--params") + 1])
    with open(params["path"], encoding="utf-8") as fh:
        print(json.dumps({"content": fh.read()}))


if __name__ == "__main__":
    main()
