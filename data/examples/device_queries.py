# Asking about the installation and the devices.
#
# Version, availability, device count, names and compute capability, and
# what torch.device() makes of the different ways to spell a device.
import torch
print(torch.__version__)
print(torch.cuda.is_available())
print("default device: {}".format(torch.Tensor([4, 5, 6]).device))
print("available cpu devices: {}".format(torch.cuda.os.cpu_count()))
print("available gpu devices: {}".format(torch.cuda.device_count()))
print("gpu device name: {}".format(torch.cuda.get_device_name(torch.device("cuda:0"))))
device = torch.Tensor([1, 2, 3], device="cpu:0").device
print("device type: {}".format(device))
cpu1 = torch.device("cpu:0")
print("cpu device: {}:{}".format(cpu1.type, cpu1.index))
gpu = torch.device(0)
print("gpu device: {}:{}".format(gpu.type, gpu.index))
gpu = torch.device("cuda:0")
print("gpu device: {}:{}".format(gpu.type, gpu.index))
print(torch.cuda.get_device_capability(), torch.cuda.current_device())
