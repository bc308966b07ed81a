/** Whether a process with this pid exists: signal 0 checks without sending; EPERM means it runs as another user. */
export function process_alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
