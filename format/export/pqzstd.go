package export

import (
	"sync"

	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// arrow v17's Parquet zstd codec builds a new zstd encoder for every page it compresses
// (parquet/compress/zstd.go, EncodeLevel), each allocating and clearing a history buffer
// of twice the 8 MB window: that alone doubled Parquet's time (BenchmarkExport,
// 1.64 s -> 0.79 s per op). compress.RegisterCodec is the library's hook for replacing a codec,
// meant to be called from init; this one keeps encoders in a pool instead. EncodeAll's
// output does not depend on the encoder's past, so the pages are the bytes arrow's own
// codec writes. Later arrow-go releases pool their encoders too; drop this on upgrading.
func init() {
	orig, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		panic(err) // arrow registers zstd in its own init
	}
	compress.RegisterCodec(compress.Codecs.Zstd, pooledZstd{orig})
}

// pooledZstd is arrow's zstd codec with pooled encoders; decoding and streaming are
// arrow's.
type pooledZstd struct{ compress.Codec }

// zstdEncoders holds idle encoders, one pool per zstd.EncoderLevel.
var zstdEncoders [zstd.SpeedBestCompression + 1]sync.Pool

func (z pooledZstd) Encode(dst, src []byte) []byte {
	return z.EncodeLevel(dst, src, compress.DefaultCompressionLevel)
}

func (pooledZstd) EncodeLevel(dst, src []byte, level int) []byte {
	lvl := zstd.SpeedDefault // as arrow maps levels
	if level != compress.DefaultCompressionLevel {
		lvl = zstd.EncoderLevelFromZstd(level)
	}
	pool := &zstdEncoders[lvl]
	enc, _ := pool.Get().(*zstd.Encoder)
	if enc == nil {
		// Concurrency 1: EncodeAll uses a single block encoder.
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(lvl),
			zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only on invalid options, fixed above
		}
	}
	dst = enc.EncodeAll(src, dst[:0])
	pool.Put(enc)
	return dst
}
