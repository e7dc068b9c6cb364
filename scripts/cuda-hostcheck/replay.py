#!/usr/bin/env python3
"""On a CUDA machine: replays the launches the host harness recorded (SF_TRACE_DIR) with the PTX of
_GalleryPTX.swift, and compares every byte of every buffer with the host's.
usage: replay.py TRACE_DIR _GalleryPTX.swift  (needs CuPy)"""
import glob
import json
import os
import sys
import zlib

import cupy as cp
import numpy as np

tdir, swift = sys.argv[1:3]
text = open(swift).read()
ptx = text.split('static let text = #"""\n', 1)[1].rsplit('\n"""#', 1)[0] + '\n'
path = '/tmp/gallery.ptx'
open(path, 'w').write(ptx)
module = cp.RawModule(path=path)
functions = {}


def blob(name):
    return np.frombuffer(zlib.decompress(open(os.path.join(tdir, name), 'rb').read()), np.uint8)


exact = total = 0
for tf in sorted(glob.glob(os.path.join(tdir, '*.json'))):
    trace = json.load(open(tf))
    bufs = {b['id']: cp.asarray(blob(b['init'])) for b in trace['buffers']}
    for launch in trace['launches']:
        name = launch['kernel']
        if name not in functions:
            functions[name] = module.get_function(name)
        args = []
        for a in launch['args']:
            if a[0] == 'buf':
                args.append(bufs[a[1]][a[2]:])
            elif a[0] == 'i32':
                args.append(np.int32(a[1]))
            else:
                args.append(np.uint32(a[1]).view(np.float32))
        functions[name](tuple(launch['grid']), tuple(launch['block']), tuple(args))
    cp.cuda.Device().synchronize()
    bad = []
    for b in trace['buffers']:
        got, want = cp.asnumpy(bufs[b['id']]), blob(b['final'])
        d = np.nonzero(got != want)[0]
        if len(d):
            bad.append(f"buffer {b['id']} ({b['size']} bytes): {len(d)} differ, first at {d[0]} (gpu {got[d[0]]}, host {want[d[0]]})")
    total += 1
    exact += not bad
    kernels = sorted({launch['kernel'] for launch in trace['launches']})
    print(('EXACT ' if not bad else 'DIFF  ') + os.path.basename(tf)[:-5] + ' [' + ' '.join(kernels) + ']'
          + ('' if not bad else ': ' + '; '.join(bad)), flush=True)
print(f'{exact} of {total} traces byte-identical on the GPU')
