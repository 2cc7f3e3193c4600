// What the command prints. On a terminal: colours and progress bars (on stderr, so stdout stays
// the report). Piped, as in CI: plain lines, one per event, no escape codes. With `--json` the
// JSON document is the only thing on stdout and the lines move to stderr.
import { styleText } from 'node:util';
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, status: string): void;
  stop(): void;
}

export class Output {
  readonly tty: boolean;
  private readonly color: boolean;
  private bars: cliProgress.MultiBar | undefined;
  private liveBars = 0;

  constructor(
    private readonly json = false,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(stdout.isTTY) && Boolean(stderr.isTTY);
    this.color = this.tty && !process.env.NO_COLOR;
  }

  /** A line of the human report. */
  line(text: string): void {
    this.write(this.json ? this.stderr : this.stdout, text);
  }

  pass(text: string): void {
    this.line(this.color ? `${styleText('green', '✓')} ${text}` : `PASS ${text}`);
  }

  fail(text: string): void {
    this.line(this.color ? `${styleText('red', '✗')} ${text}` : `FAIL ${text}`);
  }

  /** A board left alone on purpose (another profile): neither a pass nor a failure. */
  skip(text: string): void {
    this.line(this.color ? `${styleText('yellow', '–')} ${text}` : `SKIP ${text}`);
  }

  /** Diagnostics and errors: always stderr. */
  note(text: string): void {
    this.write(this.stderr, this.color ? styleText('yellow', text) : text);
  }

  error(text: string): void {
    this.write(this.stderr, this.color ? styleText('red', text) : text);
  }

  /** The machine-readable document (`--json`). */
  document(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A bar on a terminal; nothing when piped, where the event lines say the same. */
  progress(total: number, label: string): Progress {
    if (!this.tty) return { update: () => undefined, stop: () => undefined };
    this.bars ??= new cliProgress.MultiBar(
      {
        stream: this.stderr,
        format: '{label} [{bar}] {value}/{total} {status}',
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    const bars = this.bars;
    const bar = bars.create(total, 0, { label, status: '' });
    this.liveBars += 1;
    return {
      update: (done, status) => bar.update(done, { status }),
      stop: () => {
        if (!bars.remove(bar)) return;
        this.liveBars -= 1;
        if (!this.liveBars) {
          bars.stop();
          this.bars = undefined;
        }
      },
    };
  }

  private write(stream: NodeJS.WriteStream, text: string): void {
    // Under live bars a line is logged above them, or the next redraw would overwrite it.
    if (this.bars) this.bars.log(`${text}\n`);
    else stream.write(`${text}\n`);
  }
}
