// Preloaded into every server child. A parent killed with SIGKILL never runs its exit hook, so
// the end of the stdin pipe it held is the only sign its children get that they are orphaned.
// SIGTERM rather than exit() so the server's own graceful stop runs.
process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM')).resume();
