#!/usr/bin/env bash
# rye:signed:2026-01-02T03:04:05Z:d7ee0dccebdeb4a2868b510ce332c561311dc70ec06a8d732edb1046de296864:5y8IjJDla4RaEye4lXeQ3XWAqsCkYhqO1rqUGSKYTJj_LOp-jIEamijKbGh9kYgtWs9SbQsiIWq1f6C0p53ZAA==:75ac72533c07989d
# @version 1.0.0
# @tool_type bash
# @executor_id rye/core/runtimes/bash
# @category demo
# @description Print a greeting
# @config_schema {"type":"object","properties":{"name":{"type":"string"}}}
set -euo pipefail
echo "{\"greeting\": \"hi\"}"
