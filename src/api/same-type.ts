/**
 * SameType is `true` only when A and B are the same type: the same properties, each as optional
 * and as readonly in both, recursively (plain mutual assignability would let `readonly` and some
 * `any` differences through).
 */
export type SameType<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Assert compiles only for `true`: `type _ = Assert<SameType<X, Y>>` fails `tsc` where X and Y differ. */
export type Assert<T extends true> = T;
