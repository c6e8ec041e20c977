import type { LanguageModelV3Middleware } from '@ai-sdk/provider';

/** The error a model call gets once the run's spend has passed its cost budget. */
export class SpendCapError extends Error {
  override readonly name = 'SpendCapError';
}

/**
 * The contract's cost budget, enforced on the metered spend of the run's model (the provider's
 * reported usage at the model's prices). An agent without the reference runtime keeps no
 * budget of its own, so the engine does: once spend passes the budget, `onStop` stops the run
 * and every further model call is refused before it reaches the provider (nothing more is
 * spent). A budget of 0 means none.
 */
export class SpendCap {
  private spent = 0;
  private reason: string | undefined;

  constructor(
    private readonly budgetUsd: number,
    private readonly onStop: (reason: string) => void,
  ) {}

  /** USD spent so far on the run's metered model calls. */
  get spentUsd(): number {
    return this.spent;
  }

  /** Why the run was stopped, once it was. */
  get stopped(): string | undefined {
    return this.reason;
  }

  /** Counts one metered call's cost; stops the run the first time spend passes the budget. */
  add(costUsd: number): void {
    this.spent += costUsd;
    if (this.budgetUsd > 0 && this.spent > this.budgetUsd && this.reason === undefined) {
      this.reason = `stopped by faultline: the model spend $${this.spent.toFixed(4)} passed the contract's cost budget of $${String(this.budgetUsd)}`;
      this.onStop(this.reason);
    }
  }

  /** A model layer (outside the meter) that refuses every call once the run is stopped. */
  middleware(): LanguageModelV3Middleware {
    const refuse = (): void => {
      if (this.reason !== undefined) throw new SpendCapError(this.reason);
    };
    return {
      specificationVersion: 'v3',
      wrapGenerate: ({ doGenerate }) => {
        refuse();
        return doGenerate();
      },
      wrapStream: ({ doStream }) => {
        refuse();
        return doStream();
      },
    };
  }
}
