/**
 * The order the targets run in during round `round` (from 1): as listed in odd rounds, reversed in
 * even ones. A target that always ran first, or always right after the same neighbour, would carry
 * whatever that place costs (the machine still busy with the last round's targets, a database
 * still writing what they left) into every one of its ratios; over each pair of rounds every
 * target's mean place is the same.
 */
export const roundOrder = <T>(targets: readonly T[], round: number): T[] =>
  round % 2 === 1 ? [...targets] : [...targets].reverse();
