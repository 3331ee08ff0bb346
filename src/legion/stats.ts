/** Per-endpoint counters reported through ADR-32 STATS (times in nanoseconds). */
export class EndpointStats {
  numRequests = 0;
  numErrors = 0;
  lastError = '';
  processingTimeNs = 0;

  record(durationMs: number, error?: string): void {
    this.numRequests++;
    this.processingTimeNs += Math.round(durationMs * 1e6);
    if (error !== undefined) {
      this.numErrors++;
      this.lastError = error;
    }
  }

  get averageProcessingTimeNs(): number {
    return this.numRequests === 0 ? 0 : Math.round(this.processingTimeNs / this.numRequests);
  }
}
