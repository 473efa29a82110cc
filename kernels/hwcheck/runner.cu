// runner: runs gtrace's reference kernels on a real GPU through the CUDA driver
// API, from the jobs that `go run ./kernels/hwcheck prepare` writes, so that the Go
// references (kernels.Kernel.Check) can be checked against hardware.
//
//   nvcc -O2 -o runner runner.cu -lcuda && ./runner JOBS OUT [JOB...]
//
// Jobs run in the order of their names (all of them, or the ones named), one kernel
// launch each, so that a profiler's result IDs can be mapped back to jobs:
// OUT/launches.txt gets "INDEX JOB ENTRY GX,GY,GZ BX,BY,BZ" for every launch that
// cuLaunchKernel accepted, and OUT/device.txt the device's name and properties.
//
// JOBS/<kernel>/job.txt lists, one per line (other keys are for hwcheck and skipped):
//   ptx FILE                  the PTX to load (relative to JOBS)
//   entry NAME
//   grid X Y Z / block X Y Z / shared BYTES
//   arg scalar HEXBYTES       little-endian value
//   arg buf FILE              a device allocation holding FILE's bytes
//   arg tex2d W H FILE        a W x H f32 cudaArray behind a texture object
//                             (point sampling, clamp, unnormalised coordinates)
//   const NAME FILE           copy FILE's bytes to the module's __constant__ NAME
// OUT/<kernel>/argN.bin receives the final contents of memory argument N, and
// OUT/<kernel>/status "ok" or the error.
#include <cuda.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <dirent.h>
#include <sys/stat.h>

static std::string err;
#define CK(x)                                                                   \
	do {                                                                    \
		CUresult r_ = (x);                                              \
		if (r_ != CUDA_SUCCESS) {                                       \
			const char *s_ = 0;                                     \
			cuGetErrorString(r_, &s_);                              \
			err = std::string(#x) + ": " + (s_ ? s_ : "?");         \
			return false;                                           \
		}                                                               \
	} while (0)

static std::vector<char> slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

static void spit(const std::string &path, const void *p, size_t n)
{
	std::ofstream f(path, std::ios::binary);
	f.write((const char *)p, n);
}

struct Arg {
	std::string kind;
	std::vector<char> bytes; // scalar value or initial contents
	CUdeviceptr ptr = 0;
	CUarray array = 0;
	CUtexObject tex = 0;
	int w = 0, h = 0;
	unsigned long long value = 0;
};

static FILE *launches;
static int launched;

static bool runJob(const std::string &jobs, const std::string &name, const std::string &out)
{
	std::ifstream job(jobs + "/" + name + "/job.txt");
	std::string line, ptxFile, entry;
	unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared = 0;
	std::vector<Arg> args;
	std::vector<std::pair<std::string, std::vector<char>>> consts;
	while (std::getline(job, line)) {
		std::istringstream in(line);
		std::string key;
		in >> key;
		if (key == "ptx") in >> ptxFile;
		else if (key == "entry") in >> entry;
		else if (key == "grid") in >> grid[0] >> grid[1] >> grid[2];
		else if (key == "block") in >> block[0] >> block[1] >> block[2];
		else if (key == "shared") in >> shared;
		else if (key == "const") {
			std::string n, f;
			in >> n >> f;
			consts.push_back({n, slurp(jobs + "/" + name + "/" + f)});
		} else if (key == "arg") {
			Arg a;
			in >> a.kind;
			if (a.kind == "scalar") {
				std::string hex;
				in >> hex;
				for (size_t i = 0; i + 1 < hex.size(); i += 2)
					a.bytes.push_back((char)strtol(hex.substr(i, 2).c_str(), 0, 16));
			} else {
				std::string f;
				if (a.kind == "tex2d") in >> a.w >> a.h;
				in >> f;
				a.bytes = slurp(jobs + "/" + name + "/" + f);
			}
			args.push_back(a);
		}
	}
	std::vector<char> ptx = slurp(jobs + "/" + ptxFile);
	ptx.push_back(0);
	CUmodule mod;
	CUfunction fn;
	CK(cuModuleLoadData(&mod, ptx.data()));
	CK(cuModuleGetFunction(&fn, mod, entry.c_str()));
	for (auto &c : consts) {
		CUdeviceptr p;
		size_t n;
		CK(cuModuleGetGlobal(&p, &n, mod, c.first.c_str()));
		CK(cuMemcpyHtoD(p, c.second.data(), std::min(n, c.second.size())));
	}
	std::vector<void *> params;
	for (auto &a : args) {
		if (a.kind == "scalar") {
			memcpy(&a.value, a.bytes.data(), a.bytes.size());
		} else if (a.kind == "buf") {
			CK(cuMemAlloc(&a.ptr, a.bytes.size()));
			CK(cuMemcpyHtoD(a.ptr, a.bytes.data(), a.bytes.size()));
			a.value = a.ptr;
		} else if (a.kind == "tex2d") {
			CUDA_ARRAY_DESCRIPTOR d = {};
			d.Width = a.w, d.Height = a.h, d.Format = CU_AD_FORMAT_FLOAT, d.NumChannels = 1;
			CK(cuArrayCreate(&a.array, &d));
			CUDA_MEMCPY2D m = {};
			m.srcMemoryType = CU_MEMORYTYPE_HOST, m.srcHost = a.bytes.data(), m.srcPitch = 4 * a.w;
			m.dstMemoryType = CU_MEMORYTYPE_ARRAY, m.dstArray = a.array;
			m.WidthInBytes = 4 * a.w, m.Height = a.h;
			CK(cuMemcpy2D(&m));
			CUDA_RESOURCE_DESC r = {};
			r.resType = CU_RESOURCE_TYPE_ARRAY, r.res.array.hArray = a.array;
			CUDA_TEXTURE_DESC t = {};
			t.addressMode[0] = t.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
			t.filterMode = CU_TR_FILTER_MODE_POINT;
			CK(cuTexObjectCreate(&a.tex, &r, &t, 0));
			a.value = a.tex;
		}
		params.push_back(&a.value);
	}
	// Above 48 KB of dynamic shared memory a launch must opt in (CUDA C++ Programming
	// Guide, "Shared Memory" of compute capabilities 7.x-9.0), up to the per-CTA maximum.
	if (shared > 48 * 1024)
		CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared));
	CK(cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, 0, params.data(), 0));
	fprintf(launches, "%d %s %s %u,%u,%u %u,%u,%u\n", launched++, name.c_str(), entry.c_str(),
		grid[0], grid[1], grid[2], block[0], block[1], block[2]);
	fflush(launches);
	CK(cuCtxSynchronize());
	mkdir((out + "/" + name).c_str(), 0755);
	for (size_t i = 0; i < args.size(); i++) {
		Arg &a = args[i];
		if (a.kind == "buf") {
			std::vector<char> b(a.bytes.size());
			CK(cuMemcpyDtoH(b.data(), a.ptr, b.size()));
			spit(out + "/" + name + "/arg" + std::to_string(i) + ".bin", b.data(), b.size());
			cuMemFree(a.ptr);
		} else if (a.kind == "tex2d") {
			cuTexObjectDestroy(a.tex);
			cuArrayDestroy(a.array);
		}
	}
	cuModuleUnload(mod);
	return true;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: runner JOBS OUT [JOB...]\n");
		return 2;
	}
	CUdevice dev;
	CUcontext ctx;
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
		fprintf(stderr, "runner: no CUDA device\n");
		return 1;
	}
	std::string jobs = argv[1], out = argv[2];
	mkdir(out.c_str(), 0755);
	std::vector<std::string> names;
	struct stat st;
	if (argc > 3) {
		names.assign(argv + 3, argv + argc);
	} else {
		DIR *d = opendir(jobs.c_str());
		for (struct dirent *e; d && (e = readdir(d));)
			if (e->d_name[0] != '.' && stat((jobs + "/" + e->d_name + "/job.txt").c_str(), &st) == 0)
				names.push_back(e->d_name);
		if (d)
			closedir(d);
	}
	std::sort(names.begin(), names.end());
	{
		char devName[256] = {0};
		int v[6] = {0};
		const CUdevice_attribute attrs[6] = {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
			CU_DEVICE_ATTRIBUTE_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR};
		cuDeviceGetName(devName, sizeof devName, dev);
		for (int i = 0; i < 6; i++)
			cuDeviceGetAttribute(&v[i], attrs[i], dev);
		int drv = 0;
		cuDriverGetVersion(&drv);
		FILE *f = fopen((out + "/device.txt").c_str(), "w");
		if (f) {
			fprintf(f, "device: %s\nsms: %d\nl2_bytes: %d\nsm_clock_max_khz: %d\nmem_clock_khz: %d\n"
				   "compute_capability: %d.%d\ncuda_driver_api: %d\n",
				devName, v[0], v[1], v[2], v[3], v[4], v[5], drv);
			fclose(f);
		}
	}
	launches = fopen((out + "/launches.txt").c_str(), "w");
	if (!launches) {
		fprintf(stderr, "runner: cannot write %s/launches.txt\n", out.c_str());
		return 1;
	}
	int bad = 0;
	for (auto &n : names) {
		err.clear();
		bool ok = runJob(jobs, n, out);
		mkdir((out + "/" + n).c_str(), 0755);
		std::string s = ok ? "ok" : err;
		spit(out + "/" + n + "/status", s.data(), s.size());
		if (!ok) {
			fprintf(stderr, "%s: %s\n", n.c_str(), err.c_str());
			bad++;
		}
	}
	fclose(launches);
	printf("runner: %zu jobs, %d failed\n", names.size(), bad);
	return bad ? 1 : 0;
}
