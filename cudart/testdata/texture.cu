// Textures through the shipped header: legacy texture references read with tex1Dfetch
// (as Rodinia's kmeans and hybridsort read theirs) and a 2D texture object read with
// tex2D<T>. cudart's TestTextures runs them against Go.

texture<float, 1, cudaReadModeElementType> t_f;
texture<float2, 1> t_f2;
texture<char4, 1, cudaReadModeNormalizedFloat> t_n;
texture<short, 1> t_s;
texture<uchar2, 1> t_u;

// fetch stores ten results per thread: float, float2, normalised char4, short, uchar2.
extern "C" __global__ void fetch(const int *idx, float *out)
{
	int i = threadIdx.x, x = idx[i];
	float a = tex1Dfetch(t_f, x);
	float2 b = tex1Dfetch(t_f2, x);
	float4 c = tex1Dfetch(t_n, x);
	short d = tex1Dfetch(t_s, x);
	uchar2 e = tex1Dfetch(t_u, x);
	float *o = out + 10 * i;
	o[0] = a;
	o[1] = b.x;
	o[2] = b.y;
	o[3] = c.x;
	o[4] = c.y;
	o[5] = c.z;
	o[6] = c.w;
	o[7] = d;
	o[8] = e.x;
	o[9] = e.y;
}

// object stores texel (x, y) of a W×H texture object at out[y*W + x], one thread each,
// read at the texel's centre; and the same through the tex2D(&ret, ...) form at out[W*H + ...].
extern "C" __global__ void object(cudaTextureObject_t t, float *out, int w, int h)
{
	int x = threadIdx.x, y = blockIdx.x;
	out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
	float v;
	tex2D(&v, t, x + 0.5f, y + 0.5f);
	out[w * h + y * w + x] = v;
}

// The host side of a program using references, as kmeans writes it: it must compile.
void bind(float *d, int n)
{
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
	t_f.filterMode = cudaFilterModePoint;
	t_f.normalized = false;
	cudaBindTexture(NULL, t_f, d, desc, n * sizeof(float));
	cudaBindTexture(NULL, t_s, d, n * sizeof(short));
	cudaUnbindTexture(t_f);
}
