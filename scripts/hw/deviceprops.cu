// deviceprops.cu: every field of cudaDeviceProp and every cudaDeviceGetAttribute value
// (1 to 130), and cudaMemGetInfo, as NAME VALUE lines: the record behind the values
// gtrace run's cudaGetDeviceProperties takes from a GPU preset (scripts/hw/deviceprops.sh).
#include <cstdio>

int main() {
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
		return 1;
#define I(f) printf(#f " %lld\n", (long long)p.f)
#define A2(f) printf(#f " %d %d\n", p.f[0], p.f[1])
#define A3(f) printf(#f " %d %d %d\n", p.f[0], p.f[1], p.f[2])
	printf("name %s\n", p.name);
	I(totalGlobalMem); I(sharedMemPerBlock); I(regsPerBlock); I(warpSize); I(memPitch);
	I(maxThreadsPerBlock); A3(maxThreadsDim); A3(maxGridSize); I(totalConstMem);
	I(major); I(minor); I(textureAlignment); I(texturePitchAlignment);
	I(multiProcessorCount); I(integrated); I(canMapHostMemory);
	I(maxTexture1D); I(maxTexture1DMipmap);
	A2(maxTexture2D); A2(maxTexture2DMipmap); A3(maxTexture2DLinear); A2(maxTexture2DGather);
	A3(maxTexture3D); A3(maxTexture3DAlt); I(maxTextureCubemap); A2(maxTexture1DLayered);
	A3(maxTexture2DLayered); A2(maxTextureCubemapLayered); I(maxSurface1D); A2(maxSurface2D);
	A3(maxSurface3D); A2(maxSurface1DLayered); A3(maxSurface2DLayered); I(maxSurfaceCubemap);
	A2(maxSurfaceCubemapLayered); I(surfaceAlignment); I(concurrentKernels); I(ECCEnabled);
	I(pciBusID); I(pciDeviceID); I(pciDomainID); I(tccDriver); I(asyncEngineCount);
	I(unifiedAddressing); I(memoryBusWidth); I(l2CacheSize);
	I(persistingL2CacheMaxSize); I(maxThreadsPerMultiProcessor); I(streamPrioritiesSupported);
	I(globalL1CacheSupported); I(localL1CacheSupported); I(sharedMemPerMultiprocessor);
	I(regsPerMultiprocessor); I(managedMemory); I(isMultiGpuBoard); I(multiGpuBoardGroupID);
	I(hostNativeAtomicSupported); I(pageableMemoryAccess);
	I(concurrentManagedAccess); I(computePreemptionSupported);
	I(canUseHostPointerForRegisteredMem); I(cooperativeLaunch);
	I(sharedMemPerBlockOptin); I(pageableMemoryAccessUsesHostPageTables);
	I(directManagedMemAccessFromHost); I(maxBlocksPerMultiProcessor);
	I(accessPolicyMaxWindowSize); I(reservedSharedMemPerBlock);
#if CUDART_VERSION < 13000 // fields CUDA 13 removed (their attributes remain)
	I(clockRate); I(deviceOverlap); I(kernelExecTimeoutEnabled); I(computeMode);
	I(maxTexture1DLinear); I(memoryClockRate); I(cooperativeMultiDeviceLaunch);
	I(singleToDoublePrecisionPerfRatio);
#endif
	for (int a = 1; a <= 130; a++) {
		int v;
		cudaError_t e = cudaDeviceGetAttribute(&v, (cudaDeviceAttr)a, 0);
		if (e == cudaSuccess)
			printf("attr%d %d\n", a, v);
		else
			printf("attr%d error %d\n", a, (int)e);
		cudaGetLastError();
	}
	size_t free, total;
	cudaMemGetInfo(&free, &total);
	printf("memgetinfo_total %zu\nmemgetinfo_free %zu\n", total, free);
	return 0;
}
