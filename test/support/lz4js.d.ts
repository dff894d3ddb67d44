/** lz4js (devDependency): the LZ4 block encoder the tests use to write Firefox's `.jsonlz4` files. */
declare module "lz4js" {
  export function compressBound(n: number): number;
  export function compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
}
