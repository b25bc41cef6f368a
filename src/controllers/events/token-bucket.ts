/**
 * A token bucket (client-go's flowcontrol idea): holds up to `burst` tokens, one returns
 * every `refillMs`; taking needs a whole token. Time is passed in, so it is pure state.
 */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    private readonly burst: number,
    private readonly refillMs: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.lastMs = nowMs;
  }

  /** Takes a token if one is there at `nowMs`. */
  take(nowMs: number): boolean {
    if (nowMs > this.lastMs) {
      this.tokens = Math.min(this.burst, this.tokens + (nowMs - this.lastMs) / this.refillMs);
      this.lastMs = nowMs;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
