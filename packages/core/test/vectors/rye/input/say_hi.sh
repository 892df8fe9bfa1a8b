#!/usr/bin/env bash
# @version 1.0.0
# @tool_type bash
# @executor_id rye/core/runtimes/bash
# @category demo
# @description Print a greeting
# @config_schema {"type":"object","properties":{"name":{"type":"string"}}}
set -euo pipefail
echo "{\"greeting\": \"hi\"}"
