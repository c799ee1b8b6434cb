/* ts-cuda-backend.c: loads the CUDA backend module at run time
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gmodule.h>

#include "ts-cuda-backend.h"

struct _TsCudaBackend
{
  GModule             *module;
  const TsCudaKernels *kernels;
  int                  n_devices;
};

G_DEFINE_QUARK (ts-cuda-backend-error-quark, ts_cuda_backend_error)

static const char *
default_module_path (void)
{
  const char *env = g_getenv ("TENSORSCOPE_CUDA_MODULE");

  if (env != NULL && *env != '\0')
    return env;
  if (g_file_test (TS_CUDA_MODULE_BUILD_PATH, G_FILE_TEST_EXISTS))
    return TS_CUDA_MODULE_BUILD_PATH;
  return TS_CUDA_MODULE_INSTALLED_PATH;
}

TsCudaBackend *
ts_cuda_backend_open (const char  *module_path,
                      GError     **error)
{
  const TsCudaKernels *(*get) (void) = NULL;
  GModule *module;
  TsCudaBackend *self;
  int count = 0;
  int err;

  if (module_path == NULL)
    module_path = default_module_path ();

  module = g_module_open (module_path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_set_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_LOAD_FAILED,
                   "Could not load the CUDA backend: %s", g_module_error ());
      return NULL;
    }
  if (!g_module_symbol (module, "ts_cuda_kernels_get", (gpointer *)&get) || get == NULL ||
      get ()->abi_version != TS_CUDA_ABI_VERSION || get ()->struct_size < sizeof (TsCudaKernels))
    {
      g_set_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_ABI,
                   "%s is not a CUDA backend module of this build", module_path);
      g_module_close (module);
      return NULL;
    }

  /* cudart loads the driver here: no driver or no GPU is an answer, not
   * a failure of the module. */
  err = get ()->device_count (&count);
  if (err != 0 || count == 0)
    {
      g_set_error (error, TS_CUDA_BACKEND_ERROR, TS_CUDA_BACKEND_ERROR_NO_DEVICE,
                   "No CUDA GPUs are available (%s)",
                   err != 0 ? get ()->error_string (err) : "no device");
      g_module_close (module);
      return NULL;
    }

  self = g_new0 (TsCudaBackend, 1);
  self->module = module;
  self->kernels = get ();
  self->n_devices = count;
  return self;
}

void
ts_cuda_backend_close (TsCudaBackend *self)
{
  if (self == NULL)
    return;
  /* cudart registers exit handlers: the module stays mapped. */
  g_module_make_resident (self->module);
  g_module_close (self->module);
  g_free (self);
}

const TsCudaKernels *
ts_cuda_backend_get_kernels (TsCudaBackend *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->kernels;
}

int
ts_cuda_backend_get_n_devices (TsCudaBackend *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_devices;
}
