// A child process run to completion with its output collected: how tests drive
// kubectl, helm and git as a user would, with input on stdin.
import { spawn } from "node:child_process";

export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runProcess(cmd: string, args: string[], input = "", cwd?: string): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}
